/**
 * The settings that choose what a buyer's documents speak and print on (docs/dashboard.md,
 * "Organizer settings" and "Event ticket settings"): the organizer's `default_language`
 * and `ticket_paper_size` on the admin API and the dashboard, and an event's language
 * (GET and PATCH /dashboard/v1/events/{id}/ticket_settings) with its effective language,
 * its audit entry, the roles that may read and change it, and another organizer's event.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { createEvent, type CreatedEvent } from '../helpers/catalog.ts';
import { UNTHROTTLED } from '../helpers/people.ts';

const SHIPPED = 'en, de, fr, es, ar';

const unknownLanguage = (param: string, tag: string) =>
  problemOf(
    400,
    `\`${param}\` must be a language Marquee ships (${SHIPPED}), got "${tag}".`,
    'parameter_invalid',
    param,
  );

async function signedIn(t: TestApp, organizerId: string, role: string): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role });
  return t.signIn(user.email, user.password);
}

describe('ticket settings', () => {
  const t = useTestApp({ env: UNTHROTTLED });

  describe('the organizer’s default language and paper size', () => {
    const org = useOrganizer(t);
    let owner: DashboardSession;
    before(async () => {
      owner = await signedIn(t, org.id, 'owner');
    });

    test('English on A4 until set; both surfaces set them, null clears the language', async () => {
      const res = await t.dash(owner, 'GET', '/dashboard/v1/organizer');
      assert.equal(res.statusCode, 200);
      const initial = res.json();
      assert.deepEqual(initial, {
        id: org.id,
        object: 'organizer',
        name: 'Test Organizer',
        timezone: 'UTC',
        currency: 'EUR',
        box_office_fee_minor: 0,
        tax_rate_bps: 0,
        contact_email: null,
        sender_email: null,
        default_language: null,
        ticket_paper_size: 'a4',
        currency_locked: false,
        created_at: initial.created_at,
        updated_at: initial.updated_at,
      });

      const set = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', {
        default_language: 'de',
        ticket_paper_size: 'letter',
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(
        { ...set.json<Record<string, unknown>>(), updated_at: undefined },
        { ...initial, default_language: 'de', ticket_paper_size: 'letter', updated_at: undefined },
      );
      assert.deepEqual((await t.admin('GET', `/admin/v1/organizers/${org.id}`)).json(), set.json());

      const cleared = await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, { default_language: null });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.deepEqual([cleared.json().default_language, cleared.json().ticket_paper_size], [null, 'letter']);
      const arabic = await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, {
        default_language: 'ar',
        ticket_paper_size: 'a4',
      });
      assert.deepEqual([arabic.json().default_language, arabic.json().ticket_paper_size], ['ar', 'a4']);
      assert.deepEqual((await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json(), arabic.json());
    });

    test('a language nobody ships or a paper size nobody prints: 400 naming it on both surfaces, nothing changes', async () => {
      const before = (await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json();
      const cases: [Record<string, unknown>, ReturnType<typeof problemOf>][] = [
        [{ default_language: 'it' }, unknownLanguage('default_language', 'it')],
        // Tags are exact: the catalogue's name, not a region or another case.
        [{ default_language: 'de-DE' }, unknownLanguage('default_language', 'de-DE')],
        [{ default_language: 'DE', name: 'Renamed' }, unknownLanguage('default_language', 'DE')],
        [
          { default_language: 'x'.repeat(36) },
          problemOf(400, '`default_language` must be at most 35 characters.', 'parameter_invalid', 'default_language'),
        ],
        [
          { default_language: 7 },
          problemOf(400, '`default_language` must be of type string.', 'parameter_invalid', 'default_language'),
        ],
        [
          { ticket_paper_size: 'a5' },
          problemOf(400, '`ticket_paper_size` must be one of: a4, letter.', 'parameter_invalid', 'ticket_paper_size'),
        ],
        [
          { ticket_paper_size: null },
          problemOf(400, '`ticket_paper_size` must be of type string.', 'parameter_invalid', 'ticket_paper_size'),
        ],
      ];
      for (const [body, problem] of cases) {
        const res = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', body);
        assert.deepEqual([res.statusCode, res.json()], [400, problem], JSON.stringify(body));
        const admin = await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, body);
        assert.deepEqual([admin.statusCode, admin.json()], [400, problem], `admin ${JSON.stringify(body)}`);
      }
      assert.deepEqual((await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json(), before);
    });
  });

  describe('an event’s ticket language', () => {
    const org = useOrganizer(t);
    let owner: DashboardSession;
    let ownerId: string;
    let ownerEmail: string;
    let event: CreatedEvent;
    before(async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner' });
      ownerId = user.id;
      ownerEmail = user.email;
      owner = await t.signIn(user.email, user.password);
      event = await createEvent(t, org.key);
    });
    const url = () => `/dashboard/v1/events/${event.id}/ticket_settings`;
    const settings = async (session = owner) => {
      const res = await t.dash(session, 'GET', url());
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const organizerLanguage = async (language: string | null) =>
      assert.equal(
        (await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', { default_language: language })).statusCode,
        200,
      );

    test('the effective language: the event’s, else the organizer’s, else English; the /v1 Event stays', async () => {
      const v1Before = (await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json();
      assert.deepEqual(await settings(), { language: null, effective_language: 'en' });
      await organizerLanguage('fr');
      assert.deepEqual(await settings(), { language: null, effective_language: 'fr' });

      t.clock.advance(1000);
      const res = await t.dash(owner, 'PATCH', url(), { language: 'es' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { language: 'es', effective_language: 'es' });
      assert.deepEqual(await settings(), { language: 'es', effective_language: 'es' });
      // The audit log: one entry against the event, the field it changed.
      const log = await t.dash(owner, 'GET', `/dashboard/v1/audit_log?action=updateEventTicketSettings`);
      assert.deepEqual(
        log.json().data.map(({ id: _id, ...entry }: Record<string, unknown>) => entry),
        [
          {
            object: 'audit_entry',
            occurred_at: t.clock.now().toISOString(),
            organizer_id: org.id,
            actor: { type: 'user', id: ownerId, label: ownerEmail },
            action: 'updateEventTicketSettings',
            target: { type: 'event', id: event.id },
            changes: { language: { before: null, after: 'es' } },
            ip: '127.0.0.1',
            user_agent: 'lightMyRequest',
            request_id: res.headers['x-request-id'],
          },
        ],
      );

      const back = await t.dash(owner, 'PATCH', url(), { language: null });
      assert.deepEqual([back.statusCode, back.json()], [200, { language: null, effective_language: 'fr' }]);
      await organizerLanguage(null);
      assert.deepEqual(await settings(), { language: null, effective_language: 'en' });
      const arabic = await t.dash(owner, 'PATCH', url(), { language: 'ar' });
      assert.deepEqual(arabic.json(), { language: 'ar', effective_language: 'ar' });
      await organizerLanguage('de');
      assert.deepEqual(await settings(), { language: 'ar', effective_language: 'ar' });

      // Dashboard only: the /v1 Event neither shows the language nor moves its updated_at.
      assert.deepEqual((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json(), v1Before);
    });

    test('bad bodies answer 400 naming `language`, and change nothing', async () => {
      const current = await settings();
      const cases: [unknown, ReturnType<typeof problemOf>][] = [
        [{ language: 'klingon' }, unknownLanguage('language', 'klingon')],
        [{ language: '' }, unknownLanguage('language', '')],
        [{}, problemOf(400, 'Missing required field `language` in body.', 'parameter_missing', 'language')],
        [
          { language: 'de', effective_language: 'de' },
          problemOf(400, 'Unknown field `effective_language` in body.', 'parameter_unknown', 'effective_language'),
        ],
      ];
      for (const [body, problem] of cases) {
        const res = await t.dash(owner, 'PATCH', url(), body);
        assert.deepEqual([res.statusCode, res.json()], [400, problem], JSON.stringify(body));
      }
      assert.deepEqual(await settings(), current);
    });

    test('a viewer reads and may not change it, the door may not read it, a manager changes it', async () => {
      const viewer = await signedIn(t, org.id, 'viewer');
      const current = await settings(viewer);
      const refused = await t.dash(viewer, 'PATCH', url(), { language: 'fr' });
      assert.deepEqual(
        [refused.statusCode, refused.json()],
        [
          403,
          problemOf(
            403,
            'Your role (viewer) does not include the `catalog` permission this operation needs. An owner can change your role.',
            'role_forbidden',
            'catalog',
          ),
        ],
      );
      const door = await signedIn(t, org.id, 'door');
      const unread = await t.dash(door, 'GET', url());
      assert.deepEqual([unread.statusCode, unread.json().param], [403, 'read']);
      assert.deepEqual(await settings(), current);

      const manager = await signedIn(t, org.id, 'manager');
      const res = await t.dash(manager, 'PATCH', url(), { language: 'fr' });
      assert.deepEqual([res.statusCode, res.json()], [200, { language: 'fr', effective_language: 'fr' }]);
    });

    test('another organizer’s event is not found, and stays as it was', async () => {
      const other = await t.createOrganizer();
      const stranger = await signedIn(t, other.id, 'owner');
      const current = await settings();
      const notFound = problemOf(404, 'Event not found.', 'resource_not_found');
      const read = await t.dash(stranger, 'GET', url());
      assert.deepEqual([read.statusCode, read.json()], [404, notFound]);
      const write = await t.dash(stranger, 'PATCH', url(), { language: 'es' });
      assert.deepEqual([write.statusCode, write.json()], [404, notFound]);
      const unknown = await t.dash(
        owner,
        'PATCH',
        '/dashboard/v1/events/00000000-0000-4000-8000-000000000000/ticket_settings',
        {
          language: 'es',
        },
      );
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, notFound]);
      assert.deepEqual(await settings(), current);
    });
  });
});
