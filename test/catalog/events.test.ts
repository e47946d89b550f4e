import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, type TestOrganizer, useOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent, type CreatedEvent } from '../helpers/catalog.ts';

const EVENT_KEYS = [
  'admission_type',
  'category_id',
  'contact_email',
  'created_at',
  'description',
  'id',
  'image_url',
  'is_archived',
  'object',
  'timezone',
  'title',
  'translations',
  'updated_at',
  'venue_id',
];
const MALFORMED = ['not-a-uuid', '123', '00000000-0000-0000-0000-00000000000g'];
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('GET /v1/events and GET /v1/events/{id}', () => {
  const t = useTestApp();
  const org = useOrganizer(t);
  const orgB = useOrganizer(t);

  test('pagination: limit 0 and 101 are refused, an unknown or foreign starting_after is refused', async () => {
    const other = await createEvent(t, orgB.key);
    for (const [query, detail, code, param] of [
      ['limit=0', '`limit` must be at least 1.', 'parameter_invalid', 'limit'],
      ['limit=101', '`limit` must be at most 100.', 'parameter_invalid', 'limit'],
      ['limit=ten', '`limit` must be of type integer.', 'parameter_invalid', 'limit'],
      [
        `starting_after=${UNKNOWN}`,
        `starting_after \`${UNKNOWN}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ],
      [
        `starting_after=${other.id}`,
        `starting_after \`${other.id}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ],
      [
        'starting_after=nope',
        '`starting_after` must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits).',
        'parameter_invalid',
        'starting_after',
      ],
    ] as const) {
      const res = await t.api(org.key, 'GET', `/v1/events?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.deepEqual(res.json(), problemOf(400, detail, code, param));
    }
    for (const limit of [1, 100]) {
      assert.equal((await t.api(org.key, 'GET', `/v1/events?limit=${limit}`)).statusCode, 200);
    }
  });

  test('a walk of 60 events in pages of 7 sees each once, newest first', async () => {
    const walker = await t.createOrganizer();
    const created: string[] = [];
    for (let i = 0; i < 60; i++) {
      created.push((await createEvent(t, walker.key, { title: `Walk ${String(i).padStart(2, '0')}` })).id);
      t.clock.advance(1000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await t.api(walker.key, 'GET', `/v1/events?limit=7${cursor ? `&starting_after=${cursor}` : ''}`);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.object, 'list');
      pages++;
      seen.push(...body.data.map((e: { id: string }) => e.id));
      assert.equal(body.has_more, seen.length < 60);
      assert.equal(body.data.length, body.has_more ? 7 : 60 - 8 * 7);
      if (!body.has_more) break;
      cursor = body.data.at(-1).id;
    }
    assert.equal(pages, 9);
    assert.equal(new Set(seen).size, 60);
    assert.deepEqual(seen, [...created].reverse());
    const defaultPage = (await t.api(walker.key, 'GET', '/v1/events')).json();
    assert.equal(defaultPage.data.length, 25);
    assert.equal(defaultPage.has_more, true);
  });

  test('the list includes drafts, past and archived events, in the list shape (no ticket_types)', async () => {
    const lister = await t.createOrganizer();
    const draft = await createEvent(t, lister.key, { publish: false });
    t.clock.advance(1000);
    const past = await createEvent(t, lister.key, {
      performances: [{ starts_at: '2001-05-05T20:00:00Z', capacity: 5 }],
    });
    t.clock.advance(1000);
    const archived = await createEvent(t, lister.key);
    assert.equal(
      (await t.api(lister.key, 'PATCH', `/v1/events/${archived.id}`, { is_archived: true })).statusCode,
      200,
    );
    const body = (await t.api(lister.key, 'GET', '/v1/events')).json();
    assert.deepEqual(
      body.data.map((e: { id: string }) => e.id),
      [archived.id, past.id, draft.id],
    );
    const { ticket_types: _tt, ...draftSummary } = draft;
    assert.deepEqual(body.data[2], draftSummary);
    assert.deepEqual(Object.keys(body.data[0]).sort(), EVENT_KEYS);
    assert.equal(body.data[0].is_archived, true);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'has_more', 'object']);
    // Another organizer's list does not contain them.
    const other = (await t.api(orgB.key, 'GET', '/v1/events?limit=100')).json();
    assert.ok(!other.data.some((e: { id: string }) => [draft.id, past.id, archived.id].includes(e.id)));
  });

  test('status and title narrow the list; paging keeps the filter; bad values are refused', async () => {
    const filtered = await t.createOrganizer();
    const ids: Record<string, string> = {};
    for (const [title, publish] of [
      ['Jazz at Noon', true],
      ['Late JAZZ draft', false],
      ['Opera 100% live', true],
      ['Opera_draft', false],
    ] as const) {
      ids[title] = (await createEvent(t, filtered.key, { title, publish })).id;
      t.clock.advance(1000);
    }
    await createEvent(t, orgB.key, { title: 'Jazz elsewhere', publish: false });
    const list = async (query: string) => {
      const res = await t.api(filtered.key, 'GET', `/v1/events?${query}`);
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
      return res.json().data.map((e: { title: string }) => e.title);
    };
    assert.deepEqual(await list('status=draft'), ['Opera_draft', 'Late JAZZ draft']);
    assert.deepEqual(await list('status=published'), ['Opera 100% live', 'Jazz at Noon']);
    assert.deepEqual(await list('title=jazz'), ['Late JAZZ draft', 'Jazz at Noon']);
    assert.deepEqual(await list('title=jazz&status=published'), ['Jazz at Noon']);
    // LIKE's wildcards in the text match only themselves.
    assert.deepEqual(await list('title=100%25'), ['Opera 100% live']);
    assert.deepEqual(await list('title=a_d'), ['Opera_draft']);
    assert.deepEqual(await list('title=nothing'), []);
    // A page boundary inside the filtered list.
    const first = (await t.api(filtered.key, 'GET', '/v1/events?status=draft&limit=1')).json();
    assert.deepEqual([first.data[0].id, first.has_more], [ids['Opera_draft'], true]);
    const second = (
      await t.api(filtered.key, 'GET', `/v1/events?status=draft&limit=1&starting_after=${first.data[0].id}`)
    ).json();
    assert.deepEqual([second.data[0].id, second.has_more], [ids['Late JAZZ draft'], false]);
    for (const [query, detail, param] of [
      ['status=archived', '`status` must be one of: draft, published.', 'status'],
      ['title=', '`title` must be at least 1 character.', 'title'],
    ] as const) {
      const res = await t.api(filtered.key, 'GET', `/v1/events?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.deepEqual(res.json(), problemOf(400, detail, 'parameter_invalid', param));
    }
  });

  test('GET /v1/events/{id}: unknown, malformed and foreign ids answer 404', async () => {
    const mine = await createEvent(t, org.key);
    for (const id of [UNKNOWN, ...MALFORMED]) {
      const res = await t.api(org.key, 'GET', `/v1/events/${id}`);
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), problemOf(404, 'Event not found.', 'resource_not_found'));
    }
    const foreign = await t.api(orgB.key, 'GET', `/v1/events/${mine.id}`);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Event not found.', 'resource_not_found')],
    );
  });

  test('title and description resolve from the en translation first, else the first available', async () => {
    const event = await createEvent(t, org.key, { title: 'Resolved Title', description: '<p>English</p>' });
    // Written in SQL, behind the API: the cached detail shows it once its 1 s has passed.
    const setTranslations = async (translations: unknown) => {
      await t.database.db
        .updateTable('events')
        .set({ translations: JSON.stringify(translations) })
        .where('id', '=', event.id)
        .execute();
      t.clock.advance(1000);
    };
    await setTranslations([
      { locale: 'de', title: 'Titel', description: '<p>Deutsch</p>' },
      { locale: 'fr', title: 'Titre', description: null },
    ]);
    let body = (await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json();
    assert.deepEqual([body.title, body.description], ['Titel', '<p>Deutsch</p>']);
    assert.deepEqual(body.translations, [
      { locale: 'de', title: 'Titel', description: '<p>Deutsch</p>' },
      { locale: 'fr', title: 'Titre', description: null },
    ]);
    await setTranslations([
      { locale: 'de', title: 'Titel', description: '<p>Deutsch</p>' },
      { locale: 'en', title: 'Resolved Title', description: null },
    ]);
    body = (await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json();
    assert.deepEqual([body.title, body.description], ['Resolved Title', null]);
  });
});

describe('PATCH /v1/events/{id}', () => {
  const t = useTestApp();
  let org: TestOrganizer;
  let orgB: TestOrganizer;
  let event: CreatedEvent;
  before(async () => {
    org = await t.createOrganizer();
    orgB = await t.createOrganizer();
    event = await createEvent(t, org.key, { title: 'Patch Me', description: '<p>Original</p>' });
  });

  const patch = (body: unknown, id = event.id, key = org.key) => t.api(key, 'PATCH', `/v1/events/${id}`, body);
  const expect400 = async (body: unknown, detail: string, code: ErrorCode, param?: string) => {
    const res = await patch(body);
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json(), problemOf(400, detail, code, param));
  };
  const x = (n: number, c = 'a') => c.repeat(n);
  const email = (n: number) => `a@${x(n - 6, 'b')}.com`;
  const updatedEvents = () =>
    t.database.db
      .selectFrom('domain_events')
      .selectAll()
      .where('type', '=', 'event.updated')
      .orderBy('created_at')
      .execute();

  test('an empty body, unknown keys and wrong types are refused, and change nothing', async () => {
    await expect400({}, 'Send at least one of `title`, `description`, `contact_email`, `is_archived`.', 'empty_update');
    await expect400({ status: 'published' }, 'Unknown field `status` in body.', 'parameter_unknown', 'status');
    await expect400(
      { title: 'Fine title', image_url: 'https://x' },
      'Unknown field `image_url` in body.',
      'parameter_unknown',
      'image_url',
    );
    await expect400(
      { is_archived: 'yes' },
      '`is_archived` must be of type boolean.',
      'parameter_invalid',
      'is_archived',
    );
    await expect400({ title: 5 }, '`title` must be of type string.', 'parameter_invalid', 'title');
    await expect400({ title: null }, '`title` must be of type string.', 'parameter_invalid', 'title');
    await expect400(
      { contact_email: 12345678901 },
      '`contact_email` must be of type string.',
      'parameter_invalid',
      'contact_email',
    );
    assert.equal((await updatedEvents()).length, 0);
    assert.deepEqual((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json(), event);
  });

  test('title: 2 and 513 refused, 3 and 512 accepted', async () => {
    await expect400({ title: 'ab' }, '`title` must be at least 3 characters.', 'parameter_invalid', 'title');
    await expect400({ title: x(513) }, '`title` must be at most 512 characters.', 'parameter_invalid', 'title');
    assert.equal((await patch({ title: 'abc' })).json().title, 'abc');
    assert.equal((await patch({ title: x(512, 'z') })).json().title, x(512, 'z'));
    assert.equal((await patch({ title: 'Patch Me' })).json().title, 'Patch Me');
  });

  test('contact_email: 9 and 51 characters and no @ refused; 10 and 50 accepted; null clears', async () => {
    await expect400(
      { contact_email: 'a@b.co.uk' },
      '`contact_email` must be at least 10 characters.',
      'parameter_invalid',
      'contact_email',
    );
    await expect400(
      { contact_email: email(51) },
      '`contact_email` must be at most 50 characters.',
      'parameter_invalid',
      'contact_email',
    );
    await expect400(
      { contact_email: 'box.example.com' },
      '`contact_email` must be an e-mail address such as box@example.com, got "box.example.com".',
      'parameter_invalid',
      'contact_email',
    );
    await expect400(
      { contact_email: 'box @example.com' },
      '`contact_email` must be an e-mail address such as box@example.com, got "box @example.com".',
      'parameter_invalid',
      'contact_email',
    );
    assert.equal(email(10).length, 10);
    assert.equal(email(50).length, 50);
    assert.equal((await patch({ contact_email: 'ab@cd.info' })).json().contact_email, 'ab@cd.info');
    assert.equal((await patch({ contact_email: email(50) })).json().contact_email, email(50));
    assert.equal((await patch({ contact_email: null })).json().contact_email, null);
  });

  test('description: 20001 refused; sanitized; updates the en translation; null clears; absent fields untouched', async () => {
    await expect400(
      { description: x(20001) },
      '`description` must be at most 20000 characters.',
      'parameter_invalid',
      'description',
    );
    await patch({ contact_email: 'box@example.com' });
    const res = await patch({ description: '<p>New <a href="javascript:x()">text</a><script>1</script></p>' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.description, '<p>New <a>text</a></p>');
    assert.deepEqual(body.translations, [{ locale: 'en', title: 'Patch Me', description: '<p>New <a>text</a></p>' }]);
    assert.equal(body.title, 'Patch Me');
    assert.equal(body.contact_email, 'box@example.com');
    assert.equal(body.is_archived, false);
    assert.equal((await patch({ description: x(20000) })).json().description, x(20000));
    const cleared = (await patch({ description: null })).json();
    assert.equal(cleared.description, null);
    assert.deepEqual(cleared.translations, [{ locale: 'en', title: 'Patch Me', description: null }]);
    assert.equal(cleared.contact_email, 'box@example.com');
  });

  test('is_archived toggles; the response equals the next GET; updated_at moves, created_at does not', async () => {
    t.clock.advance(5000);
    const res = await patch({ is_archived: true });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.is_archived, true);
    assert.equal(body.updated_at, t.clock.now().toISOString());
    assert.equal(body.created_at, event.created_at);
    assert.notEqual(body.updated_at, event.updated_at);
    assert.deepEqual(body.ticket_types, event.ticket_types);
    assert.deepEqual((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json(), body);
    assert.equal((await patch({ is_archived: false })).json().is_archived, false);
  });

  test('a title used by another event of the organizer answers 409 (case-insensitively); other organizers do not count', async () => {
    const other = await createEvent(t, org.key, { title: 'Taken Title' });
    const before = (await updatedEvents()).length;
    for (const title of ['Taken Title', 'TAKEN title']) {
      const res = await patch({ title });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(res.json(), problemOf(409, `An event titled "${title}" already exists.`, 'resource_exists'));
    }
    assert.equal((await updatedEvents()).length, before, 'a refused update emits nothing');
    // Renaming an event to a different case of its own title is fine.
    assert.equal((await patch({ title: 'TAKEN TITLE' }, other.id)).statusCode, 200);
    await createEvent(t, orgB.key, { title: 'Only In B' });
    assert.equal((await patch({ title: 'Only In B' })).statusCode, 200);
    assert.equal((await patch({ title: 'Patch Me' })).statusCode, 200);
  });

  test('every accepted PATCH writes one event.updated {event_id}, drafts included', async () => {
    const draft = await createEvent(t, org.key, { publish: false });
    const before = (await updatedEvents()).length;
    assert.equal((await patch({ is_archived: true }, draft.id)).statusCode, 200);
    const rows = await updatedEvents();
    assert.equal(rows.length, before + 1);
    const last = rows.filter((r) => r.data.event_id === draft.id);
    assert.equal(last.length, 1);
    assert.deepEqual(
      { organizer_id: last[0]!.organizer_id, type: last[0]!.type, data: last[0]!.data },
      { organizer_id: org.id, type: 'event.updated', data: { event_id: draft.id } },
    );
    // A draft stays a draft: nothing published.
    const published = await t.database.db
      .selectFrom('domain_events')
      .select('data')
      .where('type', '=', 'event.published')
      .execute();
    assert.ok(!published.some((r) => r.data.event_id === draft.id));
    const row = await t.database.db
      .selectFrom('events')
      .select('status')
      .where('id', '=', draft.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'draft');
  });

  test('unknown, malformed and foreign ids answer 404', async () => {
    for (const id of [UNKNOWN, ...MALFORMED]) {
      const res = await patch({ is_archived: true }, id);
      assert.deepEqual([res.statusCode, res.json()], [404, problemOf(404, 'Event not found.', 'resource_not_found')]);
    }
    const foreign = await patch({ title: 'Hijacked' }, event.id, orgB.key);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Event not found.', 'resource_not_found')],
    );
    assert.equal((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json().title, 'Patch Me');
  });

  test('a read-only key cannot PATCH (403)', async () => {
    assert.equal((await patch({ is_archived: true }, event.id, org.readKey)).statusCode, 403);
  });
});
