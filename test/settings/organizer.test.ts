/**
 * Organizer settings (docs/dashboard.md, "Organizer settings"): GET and PATCH
 * /dashboard/v1/organizer for an owner, the same domain function as the admin API's PATCH;
 * every bad field a 400 naming it that changes nothing; the currency fixed once an order
 * exists (409, in the database, under concurrency on PostgreSQL); the session body
 * following the changes; and what sender_email does to the buyer's mails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { problemOf, useTestApp, type DashboardSession, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { placeOrder, postOrder, orderBody, setupSale, type Sale } from '../helpers/orders.ts';
import { mailOf } from '../helpers/people.ts';
import { header, parseMime } from '../helpers/smtp-receiver.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function ownerOf(t: TestApp, org: TestOrganizer, email: string): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId: org.id, role: 'owner', email });
  return t.signIn(user.email, user.password);
}

const lockedProblem = (orders: number, currency: string) =>
  problemOf(
    409,
    `The currency cannot change once the organizer has orders: it has ${orders}, whose amounts, refunds and reports are in ${currency}.`,
    'invalid_state',
    'currency',
  );

describe('organizer settings', () => {
  const t = useTestApp();
  let sale: Sale;
  let owner: DashboardSession;

  before(async () => {
    sale = await setupSale(t, { settings: { box_office_fee_minor: 100, tax_rate_bps: 1900 } });
    owner = await ownerOf(t, sale.org, 'settings-owner@example.com');
  });

  test('GET answers the organizer with its e-mail addresses and currency_locked', async () => {
    const res = await t.dash(owner, 'GET', '/dashboard/v1/organizer');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.match(body.created_at, ISO);
    assert.match(body.updated_at, ISO);
    assert.deepEqual(body, {
      id: sale.org.id,
      object: 'organizer',
      name: 'Test Organizer',
      timezone: 'UTC',
      currency: 'EUR',
      box_office_fee_minor: 100,
      tax_rate_bps: 1900,
      contact_email: null,
      sender_email: null,
      default_language: null,
      ticket_paper_size: 'a4',
      currency_locked: false,
      created_at: body.created_at,
      updated_at: body.updated_at,
    });
    // The admin API shows the same object.
    assert.deepEqual((await t.admin('GET', `/admin/v1/organizers/${sale.org.id}`)).json(), body);
  });

  test('PATCH changes what it is sent, the session body follows, null clears an address', async () => {
    const res = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', {
      name: 'Jazz & Co.',
      timezone: 'Europe/Berlin',
      currency: 'CHF',
      contact_email: 'hello@jazz.example',
      sender_email: 'tickets@jazz.example',
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(
      { ...body, created_at: undefined, updated_at: undefined },
      {
        id: sale.org.id,
        object: 'organizer',
        name: 'Jazz & Co.',
        timezone: 'Europe/Berlin',
        currency: 'CHF',
        box_office_fee_minor: 100,
        tax_rate_bps: 1900,
        contact_email: 'hello@jazz.example',
        sender_email: 'tickets@jazz.example',
        default_language: null,
        ticket_paper_size: 'a4',
        currency_locked: false,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assert.deepEqual((await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json(), body);
    const session = (await t.dash(owner, 'GET', '/dashboard/v1/session')).json();
    assert.deepEqual(session.organizer, {
      id: sale.org.id,
      name: 'Jazz & Co.',
      currency: 'CHF',
      timezone: 'Europe/Berlin',
    });
    assert.equal(session.memberships[0].organizer_name, 'Jazz & Co.');
    // A key's view of the organizer follows too (its cached lookup was dropped).
    const key = (await t.api(sale.org.readKey, 'GET', '/v1/api_key')).json();
    assert.equal(JSON.stringify(key).includes('CHF'), true, JSON.stringify(key));

    const cleared = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', { sender_email: null, currency: 'EUR' });
    assert.equal(cleared.statusCode, 200);
    assert.equal(cleared.json().sender_email, null);
    assert.equal(cleared.json().contact_email, 'hello@jazz.example');
    assert.equal(cleared.json().currency, 'EUR');
  });

  test('every bad field answers 400 naming it, and changes nothing', async () => {
    const before = (await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json();
    const cases: [Record<string, unknown>, ReturnType<typeof problemOf>][] = [
      [{}, problemOf(400, 'Send at least one field to update.', 'empty_update')],
      [{ name: '' }, problemOf(400, '`name` must be at least 1 character.', 'parameter_invalid', 'name')],
      [{ name: '   ' }, problemOf(400, '`name` must not be blank.', 'parameter_invalid', 'name')],
      [
        { name: 'x'.repeat(201) },
        problemOf(400, '`name` must be at most 200 characters.', 'parameter_invalid', 'name'),
      ],
      [
        { timezone: 'Mars/Olympus_Mons' },
        problemOf(
          400,
          '`timezone` must be an IANA time zone such as Europe/Berlin, got "Mars/Olympus_Mons".',
          'parameter_invalid',
          'timezone',
        ),
      ],
      [
        { currency: 'XYZ' },
        problemOf(400, '`currency` must be an ISO 4217 code such as EUR, got "XYZ".', 'parameter_invalid', 'currency'),
      ],
      [
        { currency: 'eur' },
        problemOf(400, '`currency` must match pattern "^[A-Z]{3}$".', 'parameter_invalid', 'currency'),
      ],
      [
        { box_office_fee_minor: -1 },
        problemOf(400, '`box_office_fee_minor` must be at least 0.', 'parameter_invalid', 'box_office_fee_minor'),
      ],
      [
        { tax_rate_bps: 10001 },
        problemOf(400, '`tax_rate_bps` must be at most 10000.', 'parameter_invalid', 'tax_rate_bps'),
      ],
      [
        { tax_rate_bps: 1.5 },
        problemOf(400, '`tax_rate_bps` must be of type integer.', 'parameter_invalid', 'tax_rate_bps'),
      ],
      [
        { contact_email: 'not an address' },
        problemOf(400, '`contact_email` must be a valid email.', 'parameter_invalid', 'contact_email'),
      ],
      [
        { sender_email: `${'a'.repeat(250)}@b.example` },
        problemOf(400, '`sender_email` must be at most 254 characters.', 'parameter_invalid', 'sender_email'),
      ],
      [
        { sender_email: 'tickets@jazz.example\r\nBcc: x@evil.example' },
        problemOf(400, '`sender_email` must be a valid email.', 'parameter_invalid', 'sender_email'),
      ],
      [
        { sender_email: 42 },
        problemOf(400, '`sender_email` must be of type string.', 'parameter_invalid', 'sender_email'),
      ],
      [
        { currency_locked: false },
        problemOf(400, 'Unknown field `currency_locked` in body.', 'parameter_unknown', 'currency_locked'),
      ],
      [
        { name: 'Fine', timezone: 'Nowhere' },
        problemOf(
          400,
          '`timezone` must be an IANA time zone such as Europe/Berlin, got "Nowhere".',
          'parameter_invalid',
          'timezone',
        ),
      ],
    ];
    for (const [body, problem] of cases) {
      const res = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', body);
      assert.deepEqual([res.statusCode, res.json()], [400, problem], JSON.stringify(body));
      // The admin API's PATCH is the same function: the same answer.
      const admin = await t.admin('PATCH', `/admin/v1/organizers/${sale.org.id}`, body);
      assert.deepEqual([admin.statusCode, admin.json()], [400, problem], `admin ${JSON.stringify(body)}`);
    }
    assert.deepEqual((await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json(), before);
  });

  test('once an order exists the currency is fixed: 409 on both surfaces, other fields still change', async () => {
    await placeOrder(t, sale);
    await placeOrder(t, sale, { tender: 'pay_later' });
    const locked = (await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json();
    assert.equal(locked.currency_locked, true);
    assert.equal(locked.currency, 'EUR');

    const res = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', { currency: 'USD', name: 'Renamed' });
    assert.deepEqual([res.statusCode, res.json()], [409, lockedProblem(2, 'EUR')]);
    const admin = await t.admin('PATCH', `/admin/v1/organizers/${sale.org.id}`, { currency: 'USD' });
    assert.deepEqual([admin.statusCode, admin.json()], [409, lockedProblem(2, 'EUR')]);
    // Nothing changed, not even the name sent with it.
    assert.deepEqual((await t.dash(owner, 'GET', '/dashboard/v1/organizer')).json(), locked);

    // The same currency again is no change; other fields change as before.
    const same = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', {
      currency: 'EUR',
      box_office_fee_minor: 150,
    });
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(
      [same.json().currency, same.json().box_office_fee_minor, same.json().currency_locked],
      ['EUR', 150, true],
    );
    const listed = (await t.admin('GET', '/admin/v1/organizers'))
      .json()
      .data.find((o: { id: string }) => o.id === sale.org.id);
    assert.equal(listed.currency_locked, true);
  });

  test('another organizer is untouched, and a manager may not read the settings', async () => {
    const other = await t.createOrganizer();
    const manager = await t.createUser({
      organizerId: other.id,
      role: 'manager',
      email: 'settings-manager@example.com',
    });
    const session = await t.signIn(manager.email, manager.password);
    const res = await t.dash(session, 'GET', '/dashboard/v1/organizer');
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().param, 'team');
    const otherOwner = await ownerOf(t, other, 'settings-other-owner@example.com');
    const theirs = (await t.dash(otherOwner, 'GET', '/dashboard/v1/organizer')).json();
    assert.deepEqual([theirs.id, theirs.currency_locked, theirs.name], [other.id, false, 'Test Organizer']);
  });
});

describe('the buyer’s mails speak for the organizer', () => {
  const t = useTestApp();

  test('From: the organizer’s name on the platform address; Reply-To: sender, else contact, else none', async () => {
    const sale = await setupSale(t);
    const owner = await ownerOf(t, sale.org, 'mail-owner@example.com');
    const mail = mailOf(t);
    const headersOfNextMails = async () => {
      const from = mail.sent.length;
      await placeOrder(t, sale);
      await mail.run();
      return mail.sent.slice(from).map((m) => {
        const parsed = parseMime(m.raw.toString('latin1'));
        return [header(parsed.headers, 'from'), header(parsed.headers, 'reply-to') ?? null, m.envelope.from];
      });
    };
    assert.equal(
      (
        await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', {
          name: 'Jazz & Co.',
          contact_email: 'hello@jazz.example',
          sender_email: 'tickets@jazz.example',
        })
      ).statusCode,
      200,
    );
    const withSender = ['"Jazz & Co." <no-reply@localhost>', 'tickets@jazz.example', 'no-reply@localhost'];
    assert.deepEqual(await headersOfNextMails(), [withSender, withSender]);

    await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', { sender_email: null });
    const withContact = ['"Jazz & Co." <no-reply@localhost>', 'hello@jazz.example', 'no-reply@localhost'];
    assert.deepEqual(await headersOfNextMails(), [withContact, withContact]);

    await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', { contact_email: null, name: 'Plain' });
    const plain = ['Plain <no-reply@localhost>', null, 'no-reply@localhost'];
    assert.deepEqual(await headersOfNextMails(), [plain, plain]);
  });
});

describe('the currency under concurrency (PostgreSQL)', { skip: !onPostgres && 'needs two connections' }, () => {
  let t: TestApp;
  let client: pg.Client;
  before(async () => {
    const { createTestApp } = await import('../helpers/app.ts');
    t = await createTestApp();
    client = new pg.Client({ connectionString: t.database.url });
    await client.connect();
  });
  after(async () => {
    await client.end();
    await t.close();
  });

  test('a change waits for an order being inserted, then refuses', async () => {
    const sale = await setupSale(t);
    // A sale in flight: its order inserted, not committed (the row lock the trigger takes).
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO orders (organizer_id, order_no, status, tender, buyer_first_name, buyer_email, currency, total_minor)
       VALUES ($1, 'INFLIGHT', 'placed', 'cash', 'Ada', 'ada@example.test', 'EUR', 0)`,
      [sale.org.id],
    );
    const change = t.admin('PATCH', `/admin/v1/organizers/${sale.org.id}`, { currency: 'USD' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.query('COMMIT');
    const res = await change;
    assert.deepEqual([res.statusCode, res.json()], [409, lockedProblem(1, 'EUR')]);
    assert.equal((await t.admin('GET', `/admin/v1/organizers/${sale.org.id}`)).json().currency, 'EUR');
  });

  test('a sale that read the old currency fails once the change commits, and its retry sells in the new one', async () => {
    const sale = await setupSale(t);
    // A currency change in flight: the organizer row locked and updated, not committed.
    await client.query('BEGIN');
    await client.query('SELECT id FROM organizers WHERE id = $1 FOR UPDATE', [sale.org.id]);
    await client.query(`UPDATE organizers SET currency = 'USD' WHERE id = $1`, [sale.org.id]);
    const order = postOrder(t, sale.org.key, orderBody(sale));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.query('COMMIT');
    const res = await order;
    assert.deepEqual(
      [res.statusCode, res.json().code, res.headers['retry-after']],
      [503, 'resource_busy', '1'],
      res.body,
    );
    // Nothing of it was written; the retry reads the new currency.
    const count = await client.query('SELECT count(*)::int AS n FROM orders WHERE organizer_id = $1', [sale.org.id]);
    assert.equal(count.rows[0].n, 0);
    const again = await postOrder(t, sale.org.key, orderBody(sale));
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.json().currency, 'USD');
  });
});
