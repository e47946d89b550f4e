/**
 * The in-process cache of GET /v1/events/{id} (docs/catalog.md): the serialized body is
 * served for 1 s, byte for byte what the uncached path answers, dropped at once by every
 * change made through this instance, and never served to another organizer. Changes made
 * behind the API's back (SQL here, another instance in production) show within 1 s.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId } from 'kysely';
import { problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent, eventBody } from '../helpers/catalog.ts';
import { CountingPlugin } from '../helpers/counting-plugin.ts';
import { onPostgres } from '../helpers/database.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

describe('GET /v1/events/{id}: the cached detail', () => {
  const t = useTestApp();
  const org = useOrganizer(t);
  const orgB = useOrganizer(t);

  const get = (id: string, key = org.key) => t.api(key, 'GET', `/v1/events/${id}`);
  /** Changes the event behind the API's back, so only a reload from the database shows it. */
  const setContactEmailInSql = (id: string, email: string) =>
    t.database.db.updateTable('events').set({ contact_email: email }).where('id', '=', id).execute();

  test('the 201 of POST, the first (uncached) GET and the cached GET are the same bytes', async () => {
    const created = await t.api(
      org.key,
      'POST',
      '/v1/events',
      eventBody(t, {
        performances: [
          { starts_at: '2026-09-02T19:00:00Z', capacity: 10 },
          { starts_at: '2026-09-01T19:00:00Z', capacity: 20, title: 'Preview' },
        ],
        ticket_types: [
          { name: 'General', price_minor: 2500, quantity: null },
          { name: 'Reduced', description: 'Students', price_minor: 1500, quantity: 5 },
        ],
      }),
    );
    assert.equal(created.statusCode, 201);
    const id = created.json().id as string;
    const uncached = await get(id);
    const cached = await get(id);
    for (const res of [uncached, cached]) {
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.body, created.body);
    }
    assert.equal(created.headers['content-type'], JSON_TYPE);
    // The second GET really came from the cache: a change made in SQL is not visible yet...
    await setContactEmailInSql(id, 'sql@example.com');
    assert.equal((await get(id)).body, created.body);
    // ...until the entry's second has passed; the reload is serialized the same way.
    t.clock.advance(1000);
    const reloaded = await get(id);
    assert.deepEqual(reloaded.json(), { ...created.json(), contact_email: 'sql@example.com' });
    assert.equal(reloaded.body, created.body.replace('"contact_email":null', '"contact_email":"sql@example.com"'));
  });

  test('served for just under 1 s: still cached at 999 ms, reloaded at 1000 ms', async () => {
    const event = await createEvent(t, org.key);
    const first = await get(event.id);
    await setContactEmailInSql(event.id, 'later@example.com');
    t.clock.advance(999);
    assert.equal((await get(event.id)).body, first.body);
    t.clock.advance(1);
    assert.equal((await get(event.id)).json().contact_email, 'later@example.com');
  });

  test('PATCH then GET shows the change at once, and the GET equals the 200 of the PATCH', async () => {
    const event = await createEvent(t, org.key);
    await get(event.id); // cached
    const patched = await t.api(org.key, 'PATCH', `/v1/events/${event.id}`, {
      title: 'Patched Title',
      contact_email: 'box@example.com',
    });
    assert.equal(patched.statusCode, 200);
    const after = await get(event.id);
    assert.equal(after.body, patched.body);
    assert.deepEqual([after.json().title, after.json().contact_email], ['Patched Title', 'box@example.com']);
  });

  test('PATCH with Idempotency-Key (committed after the handler) then GET shows the change at once; a replay changes nothing', async () => {
    const event = await createEvent(t, org.key);
    await get(event.id);
    const headers = { 'idempotency-key': `cache-${event.id}` };
    const patched = await t.api(org.key, 'PATCH', `/v1/events/${event.id}`, { is_archived: true }, headers);
    assert.equal(patched.statusCode, 200);
    assert.equal((await get(event.id)).body, patched.body);
    assert.equal((await get(event.id)).json().is_archived, true);
    const replay = await t.api(org.key, 'PATCH', `/v1/events/${event.id}`, { is_archived: true }, headers);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal((await get(event.id)).body, patched.body);
  });

  test('a refused PATCH leaves the cached detail as it is', async () => {
    const event = await createEvent(t, org.key);
    const before = await get(event.id);
    const refused = await t.api(org.key, 'PATCH', `/v1/events/${event.id}`, { contact_email: 'short@x.y' });
    assert.equal(refused.statusCode, 400);
    assert.equal((await get(event.id)).body, before.body);
  });

  test('admin publish then GET shows the change at once', async () => {
    const draft = await createEvent(t, org.key, { publish: false });
    const before = await get(draft.id);
    t.clock.advance(5);
    const published = await t.admin('POST', `/admin/v1/events/${draft.id}/publish`);
    assert.equal(published.statusCode, 200);
    const after = await get(draft.id);
    assert.equal(after.body, published.body);
    assert.notEqual(after.json().updated_at, before.json().updated_at);
    assert.equal(after.json().updated_at, t.clock.now().toISOString());
  });

  test("another organizer gets 404 for a cached event, and the owner's entry still serves", async () => {
    const event = await createEvent(t, org.key);
    const cached = await get(event.id);
    await setContactEmailInSql(event.id, 'owner@example.com');
    const foreign = await get(event.id, orgB.key);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Event not found.', 'resource_not_found')],
    );
    assert.equal((await get(event.id)).body, cached.body);
  });
});

/**
 * Holds the answer of the next statement once armed, until released: a load that the test
 * keeps in flight while other requests arrive (its connection stays taken meanwhile).
 */
class HoldNextAnswer implements KyselyPlugin {
  #armed = false;
  readonly #held = new Set<QueryId>();
  #release: () => void = () => {};
  #gate: Promise<void> = Promise.resolve();

  arm(): void {
    this.#armed = true;
    this.#gate = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#release();
  }

  transformQuery(args: PluginTransformQueryArgs) {
    if (this.#armed) this.#held.add(args.queryId);
    this.#armed = false;
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs) {
    if (this.#held.delete(args.queryId)) await this.#gate;
    return args.result;
  }
}

describe('GET /v1/events/{id}: concurrent misses share one load', () => {
  const t = useTestApp();
  const org = useOrganizer(t);
  const counter = new CountingPlugin();
  const hold = new HoldNextAnswer();

  before(() => {
    t.app.deps.db = t.database.db.withPlugin(counter).withPlugin(hold);
  });

  const get = (id: string) => t.api(org.key, 'GET', `/v1/events/${id}`);
  const getMany = (id: string, n: number) => Promise.all(Array.from({ length: n }, () => get(id)));

  test("20 GETs at once after the detail and the key expired cost two queries: the key's and the detail's", async () => {
    const event = await createEvent(t, org.key);
    const first = await get(event.id);
    t.clock.advance(2000); // past both TTLs: the key's lookup (2 s) and the detail (1 s)
    counter.queries = 0;
    const answers = await getMany(event.id, 20);
    assert.deepEqual(
      answers.map((res) => [res.statusCode, res.body]),
      answers.map(() => [200, first.body]),
    );
    assert.equal(counter.queries, 2);
    // Served from the cache now, as before.
    await getMany(event.id, 5);
    assert.equal(counter.queries, 2);
  });

  // A held answer keeps its connection: the PATCH needs a second one, which PGlite has not.
  const twoConnections = { skip: !onPostgres && 'needs a second database connection (PostgreSQL)' };

  test('a GET sent after a PATCH committed does not wait for a load that began before it', twoConnections, async () => {
    const event = await createEvent(t, org.key);
    const original = await get(event.id);
    t.clock.advance(1000); // the detail expired; the key's lookup is still cached
    hold.arm();
    const early = get(event.id); // its load is held in flight
    await new Promise((resolve) => setTimeout(resolve, 20));
    const patched = await t.api(org.key, 'PATCH', `/v1/events/${event.id}`, { title: 'After the load began' });
    assert.equal(patched.statusCode, 200);
    // Answered while the early load is still held; joining that load would hang here.
    const late = await Promise.race([
      get(event.id),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the late GET waited for the early load')), 3000).unref(),
      ),
    ]);
    assert.equal(late.body, patched.body);
    hold.release();
    assert.equal((await early).body, original.body, 'the early GET answers what it loaded');
    assert.equal((await get(event.id)).body, patched.body, 'and that older load was not stored');
  });
});
