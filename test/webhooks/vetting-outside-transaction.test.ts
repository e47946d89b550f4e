/**
 * Webhook URL vetting resolves DNS before any transaction opens: a resolver that hangs
 * (here: until the test opens its gate) holds no database connection, so other
 * organizers' requests go on, with and without Idempotency-Key, and a dozen such requests
 * do not exhaust a small pool (docs/operations.md, "No network I/O inside a transaction").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { gatedResolver, type GatedResolver } from '../helpers/gated-resolver.ts';

/**
 * A read that waited on the held call would not answer before the gate opens (the 2 s
 * "late" race below decides that); this bound only adds that it did not crawl, with room
 * for a loaded machine running other test files at the same time.
 */
const FAST_MS = 1_000;
const SLOW_URL = 'https://slow-dns.example/hooks';

describe('webhook URL vetting holds no database connection', () => {
  let t: TestApp;
  let a: TestOrganizer;
  let b: TestOrganizer;
  let dns: GatedResolver;
  let endpointId: string;

  before(async () => {
    // A small pool on PostgreSQL, so a dozen held connections would exhaust it.
    const database = await createTestDatabase({ poolSize: 4 });
    dns = gatedResolver();
    t = await createTestApp({ database, appOptions: { webhookResolver: dns.resolver } });
    a = await t.createOrganizer();
    b = await t.createOrganizer();
    dns.open();
    const created = await t.api(a.key, 'POST', '/v1/webhook_endpoints', {
      url: SLOW_URL,
      event_types: ['order.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    endpointId = created.json().id;
    // Warm the read path of organizer B (key cache, JIT), so the timing below measures waiting.
    for (let i = 0; i < 3; i++) assert.equal((await t.api(b.key, 'GET', '/v1/events')).statusCode, 200);
  });
  after(async () => {
    await t.close();
    await t.database.close();
  });

  /** B's list answers within FAST_MS; the request is awaited to the end either way. */
  async function assertOtherOrganizerAnswersFast(label: string) {
    const started = performance.now();
    const reads = Array.from({ length: 3 }, () => t.api(b.key, 'GET', '/v1/events'));
    const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000).unref());
    const first = await Promise.race([Promise.all(reads), timer]);
    const elapsed = performance.now() - started;
    assert.notEqual(first, 'late', `${label}: GET /v1/events of another organizer waited on the slow resolver`);
    for (const res of first as Awaited<(typeof reads)[number]>[]) assert.equal(res.statusCode, 200, label);
    assert.ok(elapsed < FAST_MS, `${label}: GET /v1/events took ${elapsed.toFixed(1)} ms`);
  }

  /** Starts `requests` while the resolver hangs, checks B meanwhile, then lets DNS answer. */
  async function whileResolverHangs(label: string, requests: Array<() => ReturnType<TestApp['api']>>) {
    dns = gatedResolver();
    t.app.deps.webhookResolver = dns.resolver;
    const before = dns.calls;
    const pending = requests.map((start) => start());
    try {
      await dns.waitForCalls(before + requests.length);
      await assertOtherOrganizerAnswersFast(label);
    } finally {
      dns.open();
    }
    return Promise.all(pending);
  }

  const createBody = { url: SLOW_URL, event_types: ['order.created'] };

  for (const withKey of [false, true]) {
    test(`POST /v1/webhook_endpoints ${withKey ? 'with' : 'without'} Idempotency-Key`, async () => {
      const headers: Record<string, string> = withKey ? { 'idempotency-key': `slow-create-${Date.now()}` } : {};
      const [res] = await whileResolverHangs(`create ${withKey ? 'with' : 'without'} key`, [
        () => t.api(a.key, 'POST', '/v1/webhook_endpoints', createBody, headers),
      ]);
      assert.equal(res!.statusCode, 201, res!.body);
      assert.equal(res!.json().url, SLOW_URL);
    });
  }

  test('PATCH /v1/webhook_endpoints/{id} with a new url and Idempotency-Key', async () => {
    const url = 'https://slow-dns.example/other';
    const [res] = await whileResolverHangs('patch with key', [
      () =>
        t.api(
          a.key,
          'PATCH',
          `/v1/webhook_endpoints/${endpointId}`,
          { url },
          { 'idempotency-key': `slow-patch-${Date.now()}` },
        ),
    ]);
    assert.equal(res!.statusCode, 200, res!.body);
    assert.equal(res!.json().url, url);
  });

  test('a dozen slow requests at once do not exhaust the pool', async () => {
    const stamp = Date.now();
    const requests = Array.from({ length: 12 }, (_, i) =>
      i % 4 === 3
        ? () =>
            t.api(
              a.key,
              'PATCH',
              `/v1/webhook_endpoints/${endpointId}`,
              { url: `${SLOW_URL}/${i}` },
              { 'idempotency-key': `dozen-${stamp}-${i}` },
            )
        : () => t.api(a.key, 'POST', '/v1/webhook_endpoints', createBody, { 'idempotency-key': `dozen-${stamp}-${i}` }),
    );
    const results = await whileResolverHangs('a dozen slow requests', requests);
    assert.deepEqual(
      results.map((r) => r.statusCode),
      results.map((_, i) => (i % 4 === 3 ? 200 : 201)),
    );
  });

  test('a refused URL still answers the vetting 400, and nothing is stored', async () => {
    const privateDns = gatedResolver('10.0.0.7');
    privateDns.open();
    t.app.deps.webhookResolver = privateDns.resolver;
    const before = (await t.api(a.key, 'GET', '/v1/webhook_endpoints?limit=100')).json().data.length;
    const res = await t.api(
      a.key,
      'POST',
      '/v1/webhook_endpoints',
      { url: 'https://inside.example/h', event_types: ['order.created'] },
      { 'idempotency-key': `refused-${Date.now()}` },
    );
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail:
        'Webhook URL host inside.example resolves to 10.0.0.7, a private address; only public addresses are allowed.',
      code: 'parameter_invalid',
      param: 'url',
    });
    assert.equal((await t.api(a.key, 'GET', '/v1/webhook_endpoints?limit=100')).json().data.length, before);
  });
});
