/**
 * Webhook endpoints: create, list, read, update, delete and secret rotation, with the
 * URL vetted (https, no credentials, every resolved address public) at create and at
 * every URL change. The raw secret leaves only in the create and rotate responses.
 */
import {
  deleteEndpoint,
  endpointListQuery,
  findEndpoint,
  insertEndpoint,
  updateEndpoint,
} from '../../db/repositories/webhooks.ts';
import { keysetPage, mapPage, type PageRequest } from '../../db/pagination.ts';
import type { Updateable } from 'kysely';
import type { WebhookEndpointsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { SubscribableEventType } from '../../outbox/emit.ts';
import { generateWebhookSecret, secretPreview } from './signature.ts';
import { UrlVettingError, vetWebhookUrl, type VettingOptions } from './url-vetting.ts';

export type EndpointRow = NonNullable<Awaited<ReturnType<typeof findEndpoint>>>;

export interface CreateEndpointInput {
  url: string;
  description?: string | null;
  event_types: SubscribableEventType[];
}

export interface UpdateEndpointInput {
  url?: string;
  description?: string | null;
  event_types?: SubscribableEventType[];
  status?: 'enabled' | 'disabled';
}

/** Vets a URL for storing; a refusal is a 400 that says why. */
async function vetForStorage(url: string, vetting: VettingOptions): Promise<void> {
  try {
    await vetWebhookUrl(url, vetting);
  } catch (err) {
    if (err instanceof UrlVettingError) throw badRequest(err.message);
    throw err;
  }
}

export async function createEndpoint(
  db: Executor,
  organizerId: string,
  input: CreateEndpointInput,
  vetting: VettingOptions,
  now: Date,
): Promise<{ row: EndpointRow; secret: string }> {
  await vetForStorage(input.url, vetting);
  const secret = generateWebhookSecret();
  const row = await insertEndpoint(db, {
    organizer_id: organizerId,
    url: input.url,
    description: input.description ?? null,
    event_types: input.event_types,
    status: 'enabled',
    secret,
    created_at: now,
    updated_at: now,
  });
  return { row, secret };
}

export async function getEndpoint(db: Executor, organizerId: string, id: string): Promise<EndpointRow> {
  const row = await findEndpoint(db, organizerId, id);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function listEndpoints(db: Executor, organizerId: string, page: PageRequest) {
  const result = await keysetPage(db, endpointListQuery(db, organizerId), page, {
    table: 'webhook_endpoints',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
  return mapPage(result, presentEndpoint);
}

export async function updateEndpointSettings(
  db: Executor,
  organizerId: string,
  id: string,
  input: UpdateEndpointInput,
  vetting: VettingOptions,
  now: Date,
): Promise<EndpointRow> {
  if (Object.keys(input).length === 0) {
    throw badRequest('Send at least one of `url`, `description`, `event_types`, `status` to update.');
  }
  const current = await getEndpoint(db, organizerId, id);
  if (input.url !== undefined) await vetForStorage(input.url, vetting);
  const set: Updateable<WebhookEndpointsTable> = { updated_at: now };
  if (input.url !== undefined) set.url = input.url;
  if (input.description !== undefined) set.description = input.description;
  if (input.event_types !== undefined) set.event_types = input.event_types;
  if (input.status === 'enabled') {
    set.status = 'enabled';
    set.disabled_reason = null;
    // A fresh sustained-failure window: older failures no longer count against it.
    if (current.status !== 'enabled') set.reenabled_at = now;
  } else if (input.status === 'disabled') {
    // A manual disable keeps an earlier auto-disable reason (null if there was none).
    set.status = 'disabled';
  }
  const row = await updateEndpoint(db, organizerId, id, set);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function removeEndpoint(db: Executor, organizerId: string, id: string) {
  const row = await deleteEndpoint(db, organizerId, id);
  if (!row) throw notFound('Webhook endpoint');
  return { id: row.id, object: 'webhook_endpoint' as const, deleted: true as const };
}

/** A new secret replaces the old one at once: the next attempt is signed with it. */
export async function rotateEndpointSecret(
  db: Executor,
  organizerId: string,
  id: string,
  now: Date,
): Promise<{ row: EndpointRow; secret: string }> {
  const secret = generateWebhookSecret();
  const row = await updateEndpoint(db, organizerId, id, { secret, updated_at: now });
  if (!row) throw notFound('Webhook endpoint');
  return { row, secret };
}

export function presentEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    description: row.description,
    event_types: row.event_types as SubscribableEventType[],
    status: row.status,
    disabled_reason: row.disabled_reason,
    secret_preview: secretPreview(row.secret),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The create and rotate responses: the endpoint plus its raw secret, shown only there. */
export function presentEndpointWithSecret(result: { row: EndpointRow; secret: string }) {
  return { ...presentEndpoint(result.row), secret: result.secret };
}
