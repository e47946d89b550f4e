/**
 * Reading the audit log (docs/dashboard.md, "Audit log"): owners only, newest first,
 * every filter, cursor pagination, the empty time range, another organizer's entries
 * never, and the CSV export of the same filters. On both engines.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp, type DashboardSession } from '../helpers/app.ts';
import { createEvent } from '../helpers/catalog.ts';
import { UNTHROTTLED } from '../helpers/people.ts';

describe('the audit log: reading it', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);
  let owner: DashboardSession;
  let ownerId: string;
  let ownerEmail: string;
  const events: string[] = [];
  let t0: Date;

  test('setup: an owner renames three events, a second apart, after the API key made them', async () => {
    const user = await t.createUser({ organizerId: org.id, role: 'owner' });
    ownerId = user.id;
    ownerEmail = user.email;
    owner = await t.signIn(user.email, user.password);
    t.clock.advance(60_000);
    t0 = t.clock.now();
    for (const title of ['First', 'Second', 'Third']) events.push((await createEvent(t, org.key, { title })).id);
    for (const [i, id] of events.entries()) {
      t.clock.advance(1000);
      const res = await t.dash(owner, 'PATCH', `/dashboard/v1/events/${id}`, { title: `Renamed ${i}` });
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  const list = async (query: string) => {
    const res = await t.dash(owner, 'GET', `/dashboard/v1/audit_log?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{
      data: { id: string; action: string; target: { id: string }; occurred_at: string }[];
      has_more: boolean;
    }>();
  };
  const summary = (page: Awaited<ReturnType<typeof list>>) =>
    page.data.map((e) => `${e.action} ${events.indexOf(e.target.id)}`);

  test('newest first; each filter; pages with starting_after', async () => {
    // The three creations share one instant (the clock stood still): among equals, the order is the id's.
    const everything = summary(await list(`occurred_gte=${t0.toISOString()}`));
    assert.deepEqual(everything.slice(0, 3), ['updateEvent 2', 'updateEvent 1', 'updateEvent 0']);
    assert.deepEqual(everything.slice(3).sort(), ['createEvent 0', 'createEvent 1', 'createEvent 2']);
    assert.deepEqual(summary(await list('action=updateEvent')), ['updateEvent 2', 'updateEvent 1', 'updateEvent 0']);
    assert.deepEqual(summary(await list(`actor_type=user&action=updateEvent&actor_id=${ownerId}`)), [
      'updateEvent 2',
      'updateEvent 1',
      'updateEvent 0',
    ]);
    assert.deepEqual(summary(await list(`actor_type=api_key&target_type=event`)).sort(), [
      'createEvent 0',
      'createEvent 1',
      'createEvent 2',
    ]);
    assert.deepEqual(summary(await list(`target_id=${events[1]}`)), ['updateEvent 1', 'createEvent 1']);
    assert.deepEqual(summary(await list('actor_type=operator&target_type=event')), []);
    // The time range: [t0 + 1 s, t0 + 3 s) holds the first two renames.
    const at = (ms: number) => new Date(t0.getTime() + ms).toISOString();
    assert.deepEqual(summary(await list(`occurred_gte=${at(1000)}&occurred_lt=${at(3000)}`)), [
      'updateEvent 1',
      'updateEvent 0',
    ]);

    const first = await list('action=updateEvent&limit=2');
    assert.deepEqual([summary(first), first.has_more], [['updateEvent 2', 'updateEvent 1'], true]);
    const second = await list(`action=updateEvent&limit=2&starting_after=${first.data[1]!.id}`);
    assert.deepEqual([summary(second), second.has_more], [['updateEvent 0'], false]);
  });

  test('an empty time range, a bad filter, a cursor of another list: 400 naming it', async () => {
    const at = t0.toISOString();
    const empty = await t.dash(owner, 'GET', `/dashboard/v1/audit_log?occurred_gte=${at}&occurred_lt=${at}`);
    assert.deepEqual(
      [empty.statusCode, empty.json()],
      [
        400,
        problemOf(
          400,
          `occurred_lt (${at}) must be later than occurred_gte (${at}).`,
          'parameter_invalid',
          'occurred_lt',
        ),
      ],
    );
    const actor = await t.dash(owner, 'GET', '/dashboard/v1/audit_log?actor_type=robot');
    assert.deepEqual([actor.statusCode, actor.json().param], [400, 'actor_type']);
    const exportEmpty = await t.dash(
      owner,
      'GET',
      `/dashboard/v1/audit_log/export?occurred_gte=${at}&occurred_lt=${at}`,
    );
    assert.deepEqual([exportEmpty.statusCode, exportEmpty.json().param], [400, 'occurred_lt']);
    const other = await t.createOrganizer();
    const stranger = await t.createUser({ organizerId: other.id, role: 'owner' });
    const theirs = await t.signIn(stranger.email, stranger.password);
    const foreignCursor = (await t.dash(theirs, 'GET', '/dashboard/v1/audit_log?limit=1')).json().data[0].id as string;
    const cursor = await t.dash(owner, 'GET', `/dashboard/v1/audit_log?starting_after=${foreignCursor}`);
    assert.deepEqual(
      [cursor.statusCode, cursor.json().code, cursor.json().param],
      [400, 'invalid_cursor', 'starting_after'],
    );
    // Another organizer's log holds none of this one's entries.
    const theirLog = (await t.dash(theirs, 'GET', '/dashboard/v1/audit_log?limit=100')).json().data as {
      organizer_id: string;
    }[];
    assert.ok(theirLog.length > 0 && theirLog.every((e) => e.organizer_id === other.id));
  });

  test('the CSV export: the same filters, one row per entry, newest first', async () => {
    const res = await t.dash(owner, 'GET', `/dashboard/v1/audit_log/export?action=updateEvent&target_id=${events[0]}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['content-disposition'], 'attachment; filename=audit-log.csv');
    assert.equal(res.headers['cache-control'], 'no-store');
    const entry = (await list(`action=updateEvent&target_id=${events[0]}`)).data[0] as unknown as Record<
      string,
      string
    >;
    assert.equal(
      res.body,
      'id,occurred_at,actor_type,actor_id,actor_label,action,target_type,target_id,changes,ip,user_agent,request_id\r\n' +
        `${entry.id},${new Date(t0.getTime() + 1000).toISOString()},user,${ownerId},${ownerEmail},updateEvent,event,${events[0]},` +
        '"{""title"":{""before"":""First"",""after"":""Renamed 0""},""translations"":{""before"":[{""title"":""First"",""locale"":""en"",""description"":null}],""after"":[{""title"":""Renamed 0"",""locale"":""en"",""description"":null}]}}",' +
        `127.0.0.1,lightMyRequest,${entry.request_id}\r\n`,
    );
    const all = await t.dash(owner, 'GET', `/dashboard/v1/audit_log/export?occurred_gte=${t0.toISOString()}&bom=true`);
    assert.equal(all.statusCode, 200);
    assert.ok(all.body.startsWith('\ufeffid,occurred_at,'));
    assert.equal(all.body.split('\r\n').length - 2, 6, 'six entries and the header');
  });

  test('owners only: a manager, box office or viewer gets 403 naming `team`', async () => {
    for (const role of ['manager', 'box_office', 'viewer', 'door']) {
      const user = await t.createUser({ organizerId: org.id, role });
      const session = await t.signIn(user.email, user.password);
      for (const url of ['/dashboard/v1/audit_log', '/dashboard/v1/audit_log/export']) {
        const res = await t.dash(session, 'GET', url);
        assert.deepEqual(
          [res.statusCode, res.json()],
          [
            403,
            problemOf(
              403,
              `Your role (${role}) does not include the \`team\` permission this operation needs. An owner can change your role.`,
              'role_forbidden',
              'team',
            ),
          ],
          `${role} ${url}`,
        );
      }
    }
    const key = await t.api(org.key, 'GET', '/dashboard/v1/audit_log');
    assert.equal(key.statusCode, 401, 'an API key does not open the dashboard');
  });
});
