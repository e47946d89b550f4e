/**
 * Webhook endpoints: create, list, read, update, delete and secret rotation, with the
 * URL vetted (https, no credentials, every resolved address public) at create and at
 * every URL change. The raw secret leaves only in the create and rotate responses.
 * What a PATCH of `status` sets is decided in endpoint-states.ts, beside the worker's
 * auto-disable.
 *
 * Vetting resolves the host name, and DNS can take seconds: it must never run while a
 * transaction holds a database connection (docs/operations.md, "No network I/O inside a
 * transaction"). So the caller vets first, with vetUrlForStorage(), before any
 * transaction opens, and hands the outcome in; the functions here do no network I/O.
 */
import {
  countEndpointsLocked,
  deleteEndpoint,
  endpointListQuery,
  findEndpoint,
  type EndpointRow,
  insertEndpoint,
  updateEndpoint,
} from '../db/repositories/webhook-endpoints.ts';
import { keysetPage, type PageRequest } from '../db/pagination.ts';
import type { Updateable } from 'kysely';
import type { WebhookEndpointsTable } from '../db/schema.ts';
import { withTransaction, type Executor } from '../db/transaction.ts';
import { invalid, notFound } from '../errors/domain-error.ts';
import type { SubscribableEventType } from '../outbox/domain-events.ts';
import { manualStatusChange } from './endpoint-states.ts';
import { generateWebhookSecret } from './signature.ts';
import { UrlVettingError, vetWebhookUrl, type VettingOptions } from './url-vetting.ts';

interface CreateEndpointInput {
  url: string;
  description?: string | null;
  event_types: SubscribableEventType[];
}

interface UpdateEndpointInput {
  url?: string;
  description?: string | null;
  event_types?: SubscribableEventType[];
  status?: 'enabled' | 'disabled';
}

/** The outcome of vetting a URL for storing: `refusal` says why it may not be stored. */
export interface VettedUrl {
  url: string;
  refusal: string | null;
}

/** Vets a URL for storing. Network I/O (DNS): call it outside any transaction. */
export async function vetUrlForStorage(url: string, vetting: VettingOptions): Promise<VettedUrl> {
  try {
    await vetWebhookUrl(url, vetting);
    return { url, refusal: null };
  } catch (err) {
    if (err instanceof UrlVettingError) return { url, refusal: err.message };
    throw err;
  }
}

/** A refusal is a 400 that says why; a URL that was not vetted is a bug, never stored. */
function requireVetted(url: string, vetted: VettedUrl | undefined): void {
  if (vetted === undefined || vetted.url !== url)
    throw new Error('webhook endpoint URL reached storage without being vetted');
  if (vetted.refusal !== null) throw invalid('parameter_invalid', vetted.refusal, 'url');
}

/**
 * Creates an endpoint unless the organizer already has `maxEndpoints` (a 400 that says
 * what to do). The count and the insert share a transaction and the organizer's row lock.
 */
export async function createEndpoint(
  db: Executor,
  organizerId: string,
  input: CreateEndpointInput,
  vettedUrl: VettedUrl | undefined,
  limits: { maxEndpoints: number },
  now: Date,
): Promise<{ row: EndpointRow; secret: string }> {
  requireVetted(input.url, vettedUrl);
  return withTransaction(db, async (trx) => {
    if ((await countEndpointsLocked(trx, organizerId)) >= limits.maxEndpoints) {
      throw invalid(
        'limit_reached',
        `An organizer may have at most ${limits.maxEndpoints} webhook endpoints; delete one (DELETE /v1/webhook_endpoints/{id}) before creating another.`,
      );
    }
    return insertNewEndpoint(trx, organizerId, input, now);
  });
}

async function insertNewEndpoint(
  db: Executor,
  organizerId: string,
  input: CreateEndpointInput,
  now: Date,
): Promise<{ row: EndpointRow; secret: string }> {
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
  return keysetPage(db, endpointListQuery(db, organizerId), page, {
    table: 'webhook_endpoints',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
}

export async function updateEndpointSettings(
  db: Executor,
  organizerId: string,
  id: string,
  input: UpdateEndpointInput,
  vettedUrl: VettedUrl | undefined,
  now: Date,
): Promise<EndpointRow> {
  if (Object.keys(input).length === 0) {
    throw invalid('empty_update', 'Send at least one of `url`, `description`, `event_types`, `status` to update.');
  }
  const current = await getEndpoint(db, organizerId, id);
  if (input.url !== undefined) requireVetted(input.url, vettedUrl);
  const set: Updateable<WebhookEndpointsTable> = { updated_at: now };
  if (input.url !== undefined) set.url = input.url;
  if (input.description !== undefined) set.description = input.description;
  if (input.event_types !== undefined) set.event_types = input.event_types;
  if (input.status !== undefined) Object.assign(set, manualStatusChange(input.status, current.status, now));
  const row = await updateEndpoint(db, organizerId, id, set);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function removeEndpoint(db: Executor, organizerId: string, id: string) {
  const row = await deleteEndpoint(db, organizerId, id);
  if (!row) throw notFound('Webhook endpoint');
  return row;
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
