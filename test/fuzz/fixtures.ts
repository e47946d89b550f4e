/**
 * The world the fuzzer's requests point into, created through the API: an organizer
 * with its keys, a published event (two performances, two ticket types, a question) and a
 * draft one, orders in several states with their tickets, a refund, a hold, a webhook
 * endpoint with a queued delivery, and spare API keys that may be revoked. Path
 * parameters and id fields draw on these real ids (see requests.ts).
 */
import type { LightMyRequestResponse } from 'fastify';
import type { Resolver } from '../../src/webhooks/url-vetting.ts';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';

/** Every host "resolves" at once to a public documentation address: no DNS, no traffic. */
const publicLookingResolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];

export interface Fixtures {
  org: TestOrganizer;
  adminToken: string;
  /** Real ids by resource (the path segment before `{id}`: events, orders, ...). */
  ids: Record<string, string[]>;
  /** Real values of some string fields: ticket serials (`code`), buyer emails, question keys. */
  values: Record<string, string[]>;
  /** How many ids of each pool the seeding created (kept when a pool is full). */
  seeded: Record<string, number>;
}

function expect2xx(res: LightMyRequestResponse, what: string): Record<string, unknown> {
  if (res.statusCode >= 300) throw new Error(`fuzz fixture: ${what} answered ${res.statusCode}: ${res.body}`);
  return res.json<Record<string, unknown>>();
}

/** createTestApp() with the instant resolver (closing drops its database). */
export function createFuzzApp(): Promise<TestApp> {
  return createTestApp({ appOptions: { webhookResolver: publicLookingResolver } });
}

/** The pool of each response `object`: what a 2xx creates joins the ids later requests use. */
const POOL_OF_OBJECT: Record<string, string> = {
  event: 'events',
  performance: 'performances',
  order: 'orders',
  ticket: 'tickets',
  refund: 'refunds',
  hold: 'holds',
  webhook_endpoint: 'webhook_endpoints',
  webhook_delivery: 'webhook_deliveries',
  api_key: 'api_keys',
  question: 'questions',
  organizer: 'organizers',
};
const MAX_POOL_SIZE = 40;

/** Adds the id of a created resource to its pool (the oldest created one leaves a full pool; seeded ones stay). */
export function rememberCreated(fixtures: Fixtures, body: unknown): void {
  const { id, object } = (body ?? {}) as { id?: unknown; object?: unknown };
  const pool = typeof object === 'string' ? fixtures.ids[POOL_OF_OBJECT[object] ?? ''] : undefined;
  if (pool === undefined || typeof id !== 'string' || pool.includes(id)) return;
  pool.push(id);
  if (pool.length > MAX_POOL_SIZE) pool.splice(fixtures.seeded[POOL_OF_OBJECT[object as string]!] ?? 0, 1);
}

/** Drops a deleted resource's id from its pool. */
export function forgetDeleted(fixtures: Fixtures, body: unknown): void {
  const { id, object, deleted } = (body ?? {}) as { id?: unknown; object?: unknown; deleted?: unknown };
  const pool = typeof object === 'string' ? fixtures.ids[POOL_OF_OBJECT[object] ?? ''] : undefined;
  const at = pool?.indexOf(id as string) ?? -1;
  if (deleted === true && at >= 0 && pool!.length > 1) pool!.splice(at, 1);
}

export async function seedFixtures(t: TestApp): Promise<Fixtures> {
  const org = await t.createOrganizer({ box_office_fee_minor: 150, tax_rate_bps: 1900 });
  const ids: Record<string, string[]> = {
    organizers: [org.id],
    events: [],
    performances: [],
    ticket_types: [],
    orders: [],
    tickets: [],
    refunds: [],
    holds: [],
    webhook_endpoints: [],
    webhook_deliveries: [],
    api_keys: [],
    questions: [],
    venues: [],
  };
  const values: Record<string, string[]> = {
    code: [],
    email: ['ada@example.test', 'grace@example.test'],
    field_key: ['diet'],
    ticket_no: ['1', '2'],
  };
  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => t.api(org.key, method, url, body);

  const later = (days: number) => new Date(t.clock.now().getTime() + days * 86_400_000).toISOString();
  const event = expect2xx(
    await api('POST', '/v1/events', {
      title: 'Fuzz Gala',
      venue: { name: 'Main Hall' },
      performances: [
        { starts_at: later(7), capacity: 100000 },
        { starts_at: later(14), ends_at: later(14.1), capacity: 50 },
      ],
      ticket_types: [
        { name: 'General', price_minor: 2500, quantity: null },
        { name: 'Free', price_minor: 0, quantity: 100000 },
      ],
    }),
    'event',
  );
  ids.events!.push(event.id as string);
  ids.venues!.push(event.venue_id as string);
  const ticketTypes = event.ticket_types as Array<{ id: string; prices: Array<{ performance_id: string }> }>;
  ids.ticket_types!.push(...ticketTypes.map((tt) => tt.id));
  ids.performances!.push(...new Set(ticketTypes.flatMap((tt) => tt.prices.map((p) => p.performance_id))));
  const draft = expect2xx(
    await api('POST', '/v1/events', {
      title: 'Fuzz Draft',
      venue: 'online',
      publish: false,
      performances: [{ starts_at: later(30), capacity: 10 }],
      ticket_types: [{ name: 'Seat', price_minor: 100 }],
    }),
    'draft event',
  );
  ids.events!.push(draft.id as string);

  const question = expect2xx(
    await t.admin('POST', `/admin/v1/events/${event.id as string}/questions`, {
      key: 'diet',
      label: 'Diet',
      type: 'text',
    }),
    'question',
  );
  ids.questions!.push(question.id as string);

  const item = { performance_id: ids.performances![0], ticket_type_id: ids.ticket_types![0], quantity: 2 };
  for (const tender of ['cash', 'pay_later', 'pay_later', 'cash']) {
    const order = expect2xx(
      await api('POST', '/v1/orders', {
        items: [item],
        buyer: { first_name: 'Ada', email: 'ada@example.test' },
        tender,
      }),
      `order (${tender})`,
    );
    ids.orders!.push(order.id as string);
    const tickets = expect2xx(await api('GET', `/v1/tickets?order_id=${order.id as string}`), 'tickets');
    for (const ticket of tickets.data as Array<{ id: string; serial_no: string }>) {
      ids.tickets!.push(ticket.id);
      values.code!.push(ticket.serial_no);
    }
  }
  const refund = expect2xx(
    await t.admin('POST', `/admin/v1/orders/${ids.orders![0]!}/refund`, { ticket_ids: [ids.tickets![0]] }),
    'refund',
  );
  ids.refunds!.push(refund.id as string);

  const hold = expect2xx(
    await t.admin('POST', `/admin/v1/performances/${ids.performances![0]!}/holds`, { kind: 'allocation', quantity: 3 }),
    'hold',
  );
  ids.holds!.push(hold.id as string);

  const endpoint = expect2xx(
    await api('POST', '/v1/webhook_endpoints', {
      url: 'https://hooks.example.test/marquee',
      event_types: ['order.created'],
    }),
    'webhook endpoint',
  );
  ids.webhook_endpoints!.push(endpoint.id as string);
  const delivery = expect2xx(
    await t.admin('POST', `/admin/v1/webhook_endpoints/${endpoint.id as string}/test`),
    'test delivery',
  );
  ids.webhook_deliveries!.push(delivery.id as string);

  // Spare keys: the fuzzer may revoke these, never the key it sends with.
  for (const scopes of [['read'], ['write']]) {
    const key = expect2xx(await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes }), 'spare key');
    ids.api_keys!.push(key.id as string);
  }
  const seeded = Object.fromEntries(Object.entries(ids).map(([pool, list]) => [pool, list.length]));
  return { org, adminToken: ADMIN_TOKEN, ids, values, seeded };
}
