/**
 * Order test data: a published event to sell from, and POST /v1/orders shortcuts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { useBefore, type TestApp, type TestOrganizer } from './app.ts';
import { createEvent, type CreatedEvent } from './catalog.ts';

export interface Sale {
  org: TestOrganizer;
  event: CreatedEvent;
  performanceId: string;
  ticketTypeId: string;
  /** Each ticket type's id, in the order given. */
  ticketTypeIds: string[];
}

/** An organizer (optionally with settings) and an event with one performance. */
export async function setupSale(
  t: TestApp,
  opts: { settings?: Record<string, unknown>; event?: Record<string, unknown>; org?: TestOrganizer } = {},
): Promise<Sale> {
  const org = opts.org ?? (await t.createOrganizer(opts.settings));
  const event = await createEvent(t, org.key, opts.event);
  return {
    org,
    event,
    performanceId: event.ticket_types[0]!.prices[0]!.performance_id,
    ticketTypeId: event.ticket_types[0]!.id,
    ticketTypeIds: event.ticket_types.map((tt) => tt.id),
  };
}

/** setupSale(t, opts) in a `before` hook: the shared sale of a test file or block. */
export function useSale(t: TestApp, opts: Parameters<typeof setupSale>[1] = {}): Sale {
  return useBefore(() => setupSale(t, opts), 'useSale');
}

export const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test', phone: '+44 20 7946 0000' };

/** A POST /v1/orders body for `quantity` tickets of the sale's first type. */
export function orderBody(sale: Sale, overrides: Record<string, unknown> = {}, quantity = 1): Record<string, unknown> {
  return {
    items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity }],
    buyer: BUYER,
    tender: 'cash',
    ...overrides,
  };
}

export function postOrder(
  t: TestApp,
  key: string,
  body: unknown,
  headers?: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return t.api(key, 'POST', '/v1/orders', body, headers);
}

/** Places an order; throws unless it answers 201. Returns the 201 body. */
export async function placeOrder(t: TestApp, sale: Sale, overrides: Record<string, unknown> = {}, quantity = 1) {
  const res = await postOrder(t, sale.org.key, orderBody(sale, overrides, quantity));
  if (res.statusCode !== 201) throw new Error(`order failed (${res.statusCode}): ${res.body}`);
  return res.json();
}

/** The domain events of an organizer of one type, oldest first. */
export async function eventsOfType(t: TestApp, organizerId: string, type: string) {
  const rows = await t.database.db
    .selectFrom('domain_events')
    .select(['type', 'data', 'created_at'])
    .where('organizer_id', '=', organizerId)
    .where('type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.data);
}

/** How many rows of a tenant table belong to the organizer. */
export async function countRows(
  t: TestApp,
  table: 'events' | 'orders' | 'idempotency_keys' | 'webhook_endpoints' | 'tickets' | 'payments' | 'email_jobs',
  organizerId: string,
): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organizer_id', '=', organizerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The performance's sold_count counter, as committed. */
export async function soldCount(t: TestApp, sale: Sale): Promise<number> {
  const row = await t.database.db
    .selectFrom('performances')
    .select('sold_count')
    .where('id', '=', sale.performanceId)
    .executeTakeFirstOrThrow();
  return row.sold_count;
}
