/**
 * The SDK (docs/sdk.md) against a real Marquee listening on loopback: every operation of
 * the OpenAPI document (checked against the requests sent), an Idempotency-Key on every
 * POST and PATCH, every list iterated over several pages, typed errors, retries after a
 * 503 and a 429 with the same Idempotency-Key, a replay after a lost answer, and
 * verification of a real webhook delivery. Retries after real 503s and a real 429:
 * retries.test.ts.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  Marquee,
  MarqueeApiError,
  MarqueeConnectionError,
  type EventDetail,
  type OrderDetail,
  type Page,
  type WebhookEndpoint,
  type WebhookEvent,
} from '../../packages/sdk/src/index.ts';
import { createDoorDevice } from '../../src/domain/devices/door-devices.ts';
import { deliverDue } from '../../src/webhooks/pump.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { closedPort } from '../helpers/ports.ts';
import { createWebhookTestApp, workerDepsFor } from '../webhooks/helpers.ts';

const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

/** A fetch that records each request and may answer or fail in place of the server. */
function scriptedFetch(script: (call: number, url: string, init: RequestInit) => Promise<Response | undefined>) {
  const calls: Array<{ url: string; method: string; idempotencyKey: string | undefined }> = [];
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    const url = input instanceof Request ? input.url : input.toString();
    const headers = (init.headers ?? {}) as Record<string, string>;
    calls.push({ url, method: init.method ?? 'GET', idempotencyKey: headers['idempotency-key'] });
    return (await script(calls.length, url, init)) ?? fetch(input, init);
  };
  return { fetchImpl, calls };
}

describe('the SDK against a live service', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let baseUrl: string;
  let client: Marquee;
  let event: EventDetail;
  let receiver: HttpsReceiver;
  const sleeps: number[] = [];
  /** Every request the clients below sent to the service, with its answer's request id. */
  const sent: Array<{ method: string; path: string; idempotencyKey: string | undefined; requestId: string | null }> =
    [];
  const recordingFetch: typeof fetch = async (input, init = {}) => {
    const response = await fetch(input, init);
    const headers = (init.headers ?? {}) as Record<string, string>;
    sent.push({
      method: init.method ?? 'GET',
      path: new URL(input instanceof Request ? input.url : input.toString()).pathname,
      idempotencyKey: headers['idempotency-key'],
      requestId: response.headers.get('x-request-id'),
    });
    return response;
  };
  const sdk = (options: Partial<ConstructorParameters<typeof Marquee>[0]> = {}) =>
    new Marquee({
      apiKey: org.key,
      baseUrl,
      fetch: recordingFetch,
      sleep: async (ms) => void sleeps.push(ms),
      ...options,
    });

  before(async () => {
    receiver = await startHttpsReceiver();
    t = await createWebhookTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    org = await t.createOrganizer();
    client = sdk();
    event = await client.events.create({
      title: 'Jazz at the Lighthouse',
      venue: { name: 'Lighthouse Hall' },
      timezone: 'Europe/Berlin',
      performances: [{ starts_at: '2027-03-12T18:30:00Z', capacity: 300 }],
      ticket_types: [
        { name: 'Standard', price_minor: 3500, quantity: 250 },
        { name: 'Student', price_minor: 1800, quantity: 50 },
      ],
    });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const item = (quantity = 1) => ({
    performance_id: event.ticket_types[0]!.prices[0]!.performance_id,
    ticket_type_id: event.ticket_types[0]!.id,
    quantity,
  });

  test('apiKey.get: the calling key, its scopes and organizer', async () => {
    const key = await client.apiKey.get();
    assert.deepEqual(
      { ...key, id: undefined, key_preview: undefined, created_at: undefined },
      {
        id: undefined,
        object: 'api_key',
        name: null,
        key_preview: undefined,
        scopes: ['read', 'write'],
        expires_at: null,
        created_at: undefined,
        organizer: { id: org.id, name: 'Test Organizer', currency: 'EUR', timezone: 'UTC' },
      },
    );
    assert.equal(key.key_preview, org.key.slice(0, 10));
    assert.deepEqual((await sdk({ apiKey: org.readKey }).apiKey.get()).scopes, ['read']);
  });

  test('events and performances: create, get, update, list, schedule, availability', async () => {
    assert.equal(event.object, 'event');
    assert.deepEqual(
      event.ticket_types.map((tt) => [tt.name, tt.prices[0]?.price_minor]),
      [
        ['Standard', 3500],
        ['Student', 1800],
      ],
    );
    assert.deepEqual(await client.events.get(event.id), event);
    const updated = await client.events.update(event.id, { contact_email: 'boxoffice@example.com' });
    assert.equal(updated.contact_email, 'boxoffice@example.com');
    const listed = await client.events.list();
    assert.deepEqual(
      listed.data.map((e) => e.id),
      [event.id],
    );
    assert.equal(listed.has_more, false);
    const schedule = await client.events.listPerformances(event.id);
    const performanceId = event.ticket_types[0]!.prices[0]!.performance_id;
    assert.deepEqual(
      schedule.data.map((p) => [p.id, p.starts_at, p.capacity]),
      [[performanceId, '2027-03-12T18:30:00.000Z', 300]],
    );
    assert.deepEqual(await client.performances.get(performanceId), schedule.data[0]);
    const availability = await client.performances.availability(performanceId);
    assert.ok((await client.performances.calendar(performanceId)).includes(`UID:${performanceId}@marquee\r\n`));
    assert.equal(availability.performance_id, performanceId);
    assert.equal(availability.object, 'availability');
  });

  test('orders and tickets: a sale with registration answers, reads, filters and a check-in', async () => {
    const question = await t.admin('POST', `/admin/v1/events/${event.id}/questions`, {
      key: 'dietary',
      label: 'Dietary requirements',
      type: 'text',
      per_attendee: true,
    });
    assert.equal(question.statusCode, 201, question.body);
    assert.deepEqual((await client.events.listQuestions(event.id)).data, [question.json()]);
    const order: OrderDetail = await client.orders.create({
      items: [item(2)],
      buyer: BUYER,
      tender: 'cash',
      registration_answers: [{ field_key: 'dietary', ticket_no: '1', value: 'vegetarian' }],
    });
    assert.equal(order.status, 'placed');
    assert.equal(order.total_minor, 7000);
    const tickets = order.transactions[0]?.items ?? [];
    assert.equal(tickets.length, 2);
    assert.deepEqual(
      order.registration_answers.map((a) => [a.key, a.ticket_no, a.value]),
      [['dietary', tickets[0]!.ticket_no, 'vegetarian']],
    );
    const read = await client.orders.get(order.id, { expand: ['items'] });
    assert.deepEqual(read, order);
    assert.equal((await client.orders.get(order.id)).transactions[0]?.items, undefined);
    const pdf = await client.orders.ticketsPdf(order.id);
    assert.equal(new TextDecoder().decode(pdf.subarray(0, 5)), '%PDF-');
    const placed = await client.orders.list({ status: 'placed', email: BUYER.email });
    assert.ok(placed.data.some((o) => o.id === order.id));
    assert.deepEqual((await client.orders.list({ status: 'cancelled' })).data, []);

    // No Google Wallet settings: the link is not found, in the SDK's typed error.
    await assert.rejects(client.orders.googleWallet(order.id), (err: unknown) => {
      assert.ok(err instanceof MarqueeApiError);
      assert.deepEqual([err.status, err.code], [404, 'resource_not_found']);
      return true;
    });
    // No Apple Wallet settings: the pass is refused, in the SDK's typed error.
    await assert.rejects(client.tickets.applePass(tickets[0]!.id), (err: unknown) => {
      assert.ok(err instanceof MarqueeApiError);
      assert.deepEqual([err.status, err.code], [409, 'invalid_state']);
      return true;
    });
    const listed = await client.tickets.list({ order_id: order.id });
    assert.deepEqual(listed.data.map((x) => x.id).sort(), tickets.map((x) => x.id).sort());
    assert.deepEqual(await client.tickets.get(tickets[0]!.id), tickets[0]);
    // The door's lookups (docs/door.md): exact serial or ticket number, typed params.
    const bySerial = await client.tickets.list({ serial_no: tickets[1]!.serial_no });
    assert.deepEqual(bySerial, { object: 'list', data: [tickets[1]], has_more: false });
    const byNumber = await client.tickets.list({
      ticket_no: tickets[0]!.ticket_no,
      performance_id: item(1).performance_id,
    });
    assert.deepEqual(byNumber.data, [tickets[0]]);
    assert.deepEqual((await client.tickets.list({ serial_no: 'NOSUCHSERIAL' })).data, []);
    const admitted = await client.tickets.checkIn(tickets[0]!.id);
    assert.equal(admitted.status, 'checked_in');
    const again = await client.tickets.checkIn(tickets[0]!.id).catch((err: unknown) => err);
    assert.ok(again instanceof MarqueeApiError);
    assert.deepEqual([again.status, again.code, again.detail], [409, 'invalid_state', 'Ticket is already checked in.']);
  });

  test('a door device: paired with its code, its copy, an upload and its scans', async () => {
    const performanceId = item().performance_id;
    const { token } = await createDoorDevice(
      t.database.db,
      org.id,
      { name: 'North gate', performanceIds: [performanceId], createdBy: null },
      t.clock.now(),
    );
    const claimed = await Marquee.claimDoorDevice(token.token, { baseUrl, fetch: recordingFetch });
    assert.match(claimed.api_key, /^mqk_/);
    assert.equal(claimed.device.name, 'North gate');
    const door = sdk({ apiKey: claimed.api_key });
    const device = await door.doorDevice.get();
    assert.deepEqual(
      [device.id, device.name, device.performances.map((p) => p.id)],
      [claimed.device.id, 'North gate', [performanceId]],
    );

    const order = await client.orders.create({ items: [item(3)], buyer: BUYER, tender: 'cash' });
    const sold = new Set((order.transactions[0]?.items ?? []).map((ticket) => ticket.id));
    // A list in the sync order shows changes once below its horizon: the test clock moves on.
    t.clock.advance(1000);
    // Two pages of 2: the second continues from the first's last position in the sync order.
    const copy = [];
    for await (const ticket of door.tickets.listForDoor({ limit: 2 })) copy.push(ticket);
    const mine = copy.filter((ticket) => sold.has(ticket.id));
    assert.equal(mine.length, 3);
    assert.deepEqual(
      mine.map((ticket) => [ticket.status, ticket.paid, ticket.order_cancelled]),
      [
        ['purchased', true, false],
        ['purchased', true, false],
        ['purchased', true, false],
      ],
    );

    const scan = { ticket_id: mine[0]!.id, scanned_at: t.clock.now().toISOString(), device_scan_id: 'scan-1' };
    const uploaded = await door.checkIns.upload([scan]);
    assert.deepEqual(
      uploaded.data.map((s) => [s.device_scan_id, s.outcome, s.checked_in_at]),
      [['scan-1', 'admitted', scan.scanned_at]],
    );
    const again = await door.checkIns.upload([scan]);
    assert.deepEqual(again.data, uploaded.data);
    const scans = await door.checkIns.list({ performance_id: performanceId });
    assert.deepEqual(
      scans.data.map((s) => s.id),
      [uploaded.data[0]!.id],
    );
    // A device key reaches nothing else.
    const refused = await door.orders.list().then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof MarqueeApiError);
    assert.deepEqual([refused.status, refused.code], [403, 'forbidden_scope']);
  });

  test('typed errors carry status, code, param, detail and the request id', async () => {
    const missing = await client.orders.get('00000000-0000-4000-8000-000000000000').catch((err: unknown) => err);
    assert.ok(missing instanceof MarqueeApiError);
    assert.deepEqual([missing.status, missing.code, missing.param], [404, 'resource_not_found', undefined]);
    assert.equal(missing.detail, 'Order not found.');
    assert.match(missing.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(missing.requestId, sent.at(-1)?.requestId);

    const invalid = await client.orders
      .create({ items: [item(0)], buyer: BUYER, tender: 'cash' })
      .catch((err: unknown) => err);
    assert.ok(invalid instanceof MarqueeApiError);
    assert.deepEqual([invalid.status, invalid.code, invalid.param], [400, 'parameter_invalid', 'items.0.quantity']);
    assert.equal(invalid.detail, '`items.0.quantity` must be at least 1.');
    assert.equal(invalid.problem.detail, invalid.detail);
    assert.equal(invalid.requestId, sent.at(-1)?.requestId);

    const unauthorized = await sdk({ apiKey: 'mqk_unknown' })
      .events.list()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(unauthorized instanceof MarqueeApiError);
    assert.equal(unauthorized.status, 401);
  });

  test('pagination: one page awaited, every page iterated, in the API order', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      // A second apart: the list's order is by creation time, then id.
      t.clock.advance(1000);
      created.push((await client.orders.create({ items: [item()], buyer: BUYER, tender: 'cash' })).id);
    }
    const first = await client.orders.list({ limit: 3 });
    assert.equal(first.data.length, 3);
    assert.equal(first.has_more, true);
    const all: string[] = [];
    for await (const order of client.orders.list({ limit: 3 })) all.push(order.id);
    // Newest first: the seven just made lead, and nothing repeats.
    assert.deepEqual(all.slice(0, 7), [...created].reverse());
    assert.equal(new Set(all).size, all.length);
    const pages = sleeps.length;
    const rest: string[] = [];
    for await (const order of client.orders.list({ limit: 2, starting_after: created[6] })) rest.push(order.id);
    assert.deepEqual(rest.slice(0, 6), created.slice(0, 6).reverse());
    assert.equal(sleeps.length, pages, 'no retry while paging');
  });

  test('sync order: iteration passes back updated_at with the id, so a row that moves is not a jump', async () => {
    t.clock.advance(1000);
    const since = t.clock.now().toISOString();
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      made.push((await client.orders.create({ items: [item()], buyer: BUYER, tender: 'cash' })).id);
      t.clock.advance(10);
    }
    const seen: string[] = [];
    for await (const order of client.orders.list({ order: 'updated_asc', updated_gte: since, limit: 1 })) {
      seen.push(order.id);
      // The first item changes while it is the cursor: it moves to the end of the order.
      if (seen.length === 1) {
        assert.equal((await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`)).statusCode, 200);
        t.clock.advance(10);
      }
    }
    assert.deepEqual(seen, [...made, made[0]]);
    const tickets = await client.tickets.list({ order: 'updated_asc', updated_gte: since });
    assert.equal(tickets.data.length, 4);
  });

  test('a 503 and a 429 are retried after retry-after, with the same Idempotency-Key; one order', async () => {
    sleeps.length = 0;
    const { fetchImpl, calls } = scriptedFetch(async (call) => {
      if (call === 1) return new Response('{}', { status: 503, headers: { 'retry-after': '1' } });
      if (call === 2) return new Response('{}', { status: 429, headers: { 'retry-after': '3' } });
      return undefined;
    });
    const before = (await client.orders.list({ limit: 100 })).data.length;
    const order = await sdk({ fetch: fetchImpl }).orders.create({ items: [item()], buyer: BUYER, tender: 'cash' });
    assert.equal(order.status, 'placed');
    assert.deepEqual(sleeps, [1000, 3000]);
    assert.equal(calls.length, 3);
    assert.match(calls[0]!.idempotencyKey ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(calls.every((c) => c.idempotencyKey === calls[0]!.idempotencyKey));
    assert.equal((await client.orders.list({ limit: 100 })).data.length, before + 1);
  });

  test('an answer lost after the sale: the retry is a replay of the same order', async () => {
    sleeps.length = 0;
    let firstAnswer: Response | undefined;
    const { fetchImpl, calls } = scriptedFetch(async (call, url, init) => {
      if (call !== 1) return undefined;
      firstAnswer = await fetch(url, init);
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    });
    const before = (await client.orders.list({ limit: 100 })).data.length;
    const order = await sdk({ fetch: fetchImpl }).orders.create(
      { items: [item()], buyer: BUYER, tender: 'cash' },
      { idempotencyKey: 'sdk-lost-answer-1' },
    );
    assert.equal(firstAnswer?.status, 201);
    assert.deepEqual(order, await firstAnswer?.json());
    assert.deepEqual(
      calls.map((c) => c.idempotencyKey),
      ['sdk-lost-answer-1', 'sdk-lost-answer-1'],
    );
    assert.equal(sleeps.length, 1);
    assert.equal((await client.orders.list({ limit: 100 })).data.length, before + 1);
  });

  test('no answer at all: a MarqueeConnectionError after the retries', async () => {
    sleeps.length = 0;
    const port = await closedPort();
    const offline = sdk({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const err = await offline.events.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof MarqueeConnectionError);
    assert.match(err.message, /^GET \/v1\/events: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
    // No retry-after without an answer: the jittered backoff, below 0.5 s and then 1 s.
    assert.equal(sleeps.length, 2);
    assert.ok(sleeps[0]! >= 0 && sleeps[0]! < 500 && sleeps[1]! >= 0 && sleeps[1]! < 1000, String(sleeps));
  });

  test('webhook endpoints and deliveries, and a real delivery verified into a typed event', async () => {
    const endpoint = await client.webhookEndpoints.create({
      url: receiver.url('/hooks'),
      description: 'SDK test',
      event_types: ['order.created'],
    });
    assert.match(endpoint.secret, /^whsec_/);
    const { secret: _secret, ...shown } = endpoint;
    assert.deepEqual(await client.webhookEndpoints.get(endpoint.id), shown);
    assert.ok((await client.webhookEndpoints.list()).data.some((e) => e.id === endpoint.id));
    const renamed = await client.webhookEndpoints.update(endpoint.id, { description: 'Renamed' });
    assert.equal(renamed.description, 'Renamed');
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    assert.notEqual(rotated.secret, endpoint.secret);

    const order = await client.orders.create({ items: [item()], buyer: BUYER, tender: 'cash' });
    receiver.requests.length = 0;
    await deliverDue(workerDepsFor(t, receiver));
    const [delivery] = receiver.requests;
    assert.ok(delivery);
    const realNow = Date.now;
    Date.now = () => Number(delivery.headers['webhook-timestamp']) * 1000;
    let received: WebhookEvent;
    try {
      received = client.webhooks.verify(delivery.body, delivery.headers, rotated.secret);
      assert.throws(() =>
        client.webhooks.verify(
          delivery.body.replace('"order.created"', '"order.paid"'),
          delivery.headers,
          rotated.secret,
        ),
      );
      assert.throws(() => client.webhooks.verify(delivery.body, delivery.headers, endpoint.secret));
    } finally {
      Date.now = realNow;
    }
    assert.equal(received.type, 'order.created');
    if (received.type === 'order.created') assert.equal(received.data.order_id, order.id);

    const deliveries = await client.webhookEndpoints.listDeliveries(endpoint.id);
    assert.deepEqual(
      deliveries.data.map((d) => [d.event_type, d.status]),
      [['order.created', 'success']],
    );
    const redelivery = await client.webhookDeliveries.redeliver(deliveries.data[0]!.id);
    assert.deepEqual([redelivery.event_id, redelivery.attempt], [deliveries.data[0]!.event_id, 0]);
    const deleted = await client.webhookEndpoints.delete(endpoint.id);
    assert.deepEqual(deleted, { id: endpoint.id, object: 'webhook_endpoint', deleted: true });
  });
  test('every list iterates over more than one page, in the order of one big page', async () => {
    const second = await client.events.create({
      title: 'Two Nights of Bach',
      venue: { name: 'Lighthouse Hall' },
      timezone: 'Europe/Berlin',
      performances: [
        { starts_at: '2027-04-01T18:00:00Z', capacity: 100 },
        { starts_at: '2027-04-02T18:00:00Z', capacity: 100 },
      ],
      ticket_types: [{ name: 'Standard', price_minor: 2500, quantity: 100 }],
    });
    const endpoints: WebhookEndpoint[] = [];
    for (const description of ['first', 'second']) {
      endpoints.push(
        await client.webhookEndpoints.create({
          url: receiver.url('/pages'),
          description,
          event_types: ['order.created'],
        }),
      );
    }
    for (let i = 0; i < 2; i++) await client.orders.create({ items: [item()], buyer: BUYER, tender: 'cash' });
    await deliverDue(workerDepsFor(t, receiver));

    const lists: Array<
      [string, (params: { limit: number }) => AsyncIterable<{ id: string }> & PromiseLike<Page<{ id: string }>>]
    > = [
      ['/v1/events', (p) => client.events.list(p)],
      [`/v1/events/${second.id}/performances`, (p) => client.events.listPerformances(second.id, p)],
      ['/v1/orders', (p) => client.orders.list(p)],
      ['/v1/tickets', (p) => client.tickets.list(p)],
      ['/v1/webhook_endpoints', (p) => client.webhookEndpoints.list(p)],
      [
        `/v1/webhook_endpoints/${endpoints[0]!.id}/deliveries`,
        (p) => client.webhookEndpoints.listDeliveries(endpoints[0]!.id, p),
      ],
    ];
    for (const [path, list] of lists) {
      const whole = (await list({ limit: 100 })).data.map((x) => x.id);
      assert.ok(whole.length >= 2, `${path}: ${whole.length} items`);
      const pagesBefore = sent.filter((c) => c.path === path).length;
      const iterated: string[] = [];
      for await (const x of list({ limit: 1 })) iterated.push(x.id);
      assert.deepEqual(iterated, whole, path);
      assert.equal(
        sent.filter((c) => c.path === path).length - pagesBefore,
        whole.length,
        `${path}: one page per item`,
      );
    }
  });

  test('the delivery log: payload and attempts, status and time filters, recover', async () => {
    const endpoint = await client.webhookEndpoints.create({
      url: receiver.url('/down'),
      event_types: ['order.created'],
    });
    const since = t.clock.now().toISOString();
    receiver.setHandler((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '60' }).end('down for maintenance');
    });
    try {
      await client.orders.create({ items: [item()], buyer: BUYER, tender: 'cash' });
      receiver.requests.length = 0;
      await deliverDue(workerDepsFor(t, receiver));
    } finally {
      receiver.setHandler((_req, res) => {
        res.writeHead(200).end();
      });
    }
    const [sent] = receiver.requests;
    assert.ok(sent);

    const failed = await client.webhookEndpoints.listDeliveries(endpoint.id, { status: ['failed', 'exhausted'] });
    assert.deepEqual(
      failed.data.map((d) => [d.status, d.response_status]),
      [['failed', 503]],
    );
    assert.deepEqual((await client.webhookEndpoints.listDeliveries(endpoint.id, { status: ['success'] })).data, []);
    const later = new Date(t.clock.now().getTime() + 1).toISOString();
    assert.deepEqual((await client.webhookEndpoints.listDeliveries(endpoint.id, { created_gte: later })).data, []);

    const detail = await client.webhookDeliveries.get(failed.data[0]!.id);
    assert.equal(detail.payload, sent.body);
    assert.deepEqual(
      detail.attempts.map((a) => [a.attempt, a.response_status, a.response_headers?.['retry-after'], a.response_body]),
      [[1, 503, '60', 'down for maintenance']],
    );

    const recovery = await client.webhookEndpoints.recover(endpoint.id, { since });
    assert.deepEqual(recovery, {
      object: 'webhook_recovery',
      endpoint_id: endpoint.id,
      since,
      redelivered: 1,
      already_pending: 0,
      has_more: false,
    });
    const again = await client.webhookEndpoints.recover(endpoint.id, { since });
    assert.deepEqual([again.redelivered, again.already_pending], [0, 1]);
    await client.webhookEndpoints.delete(endpoint.id);
  });

  test('the CSV exports: one header line and one line per ticket and per order', async () => {
    const performances = new Set(event.ticket_types.flatMap((type) => type.prices.map((p) => p.performance_id)));
    let ofEvent = 0;
    for await (const ticket of client.tickets.list({ limit: 100 }))
      if (performances.has(ticket.performance_id)) ofEvent++;
    const ticketsCsv = await client.events.exportTickets(event.id);
    assert.equal(ticketsCsv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal((await ticketsCsv.text()).split('\r\n').filter(Boolean).length, 1 + ofEvent);
    const ordersCsv = await client.events.exportOrders(event.id, { bom: true });
    assert.deepEqual([...new Uint8Array(await ordersCsv.arrayBuffer()).subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  });

  test('every /v1 operation of the OpenAPI document went through the SDK; POST and PATCH with a key', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
      paths: Record<string, Record<string, { operationId: string }>>;
    }>();
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({
          method: method.toUpperCase(),
          pattern: new RegExp(`^${path.replaceAll(/\{[^}]+\}/g, '[^/]+')}$`),
          operationId: op.operationId,
        })),
      );
    assert.equal(operations.length, 36);
    const called = new Set<string>();
    for (const call of sent) {
      const op = operations.find((o) => o.method === call.method && o.pattern.test(call.path));
      assert.ok(op, `${call.method} ${call.path} is no operation of the document`);
      called.add(op.operationId);
      const idempotent = call.method === 'POST' || call.method === 'PATCH';
      assert.equal(call.idempotencyKey !== undefined, idempotent, `${call.method} ${call.path}`);
      if (idempotent) assert.match(call.idempotencyKey ?? '', /^[0-9a-f-]{36}$/);
    }
    assert.deepEqual([...called].sort(), operations.map((o) => o.operationId).sort());
  });
});
