/**
 * Google Wallet (docs/tickets.md, "Google Wallet"): the dashboard's settings checked and
 * stored with the key sealed, GET /v1/orders/{id}/google_wallet verified as Google would
 * (the JWT's RS256 signature against the service account's public key, then every claim),
 * and the e-ticket mail's link, left out with a note when the stored key does not open.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { sealSecret } from '../../src/lib/secret-box.ts';
import { problemOf, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { sendDueMails } from '../helpers/mail-renderer.ts';
import { placeOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { type parseMime } from '../helpers/smtp-receiver.ts';

const SECRETS_KEY = '22'.repeat(32);
const ISSUER_ID = '3388000000012345678';
const ACCOUNT = 'wallet-signer@marquee-test.iam.gserviceaccount.com';
const KEY_ID = '0f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4';
const STARTS_AT = '2027-03-12T18:30:00.000Z';
const SAVE_URL = 'https://pay.google.com/gp/v/save/';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SETTINGS = '/dashboard/v1/organizer/wallet/google';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKeyPem = rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ecKeyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();

/** A key file as Google Cloud downloads it, its fields overridden (undefined: left out). */
function keyFile(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'marquee-test',
    private_key_id: KEY_ID,
    private_key: privateKeyPem,
    client_email: ACCOUNT,
    client_id: '112233445566778899000',
    token_uri: 'https://oauth2.googleapis.com/token',
    ...overrides,
  });
}

const settingsBody = (overrides: Record<string, unknown> = {}) => ({
  issuer_id: ISSUER_ID,
  service_account_key: keyFile(),
  ...overrides,
});

async function memberOf(t: TestApp, organizerId: string, role: string, email: string): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role, email });
  return t.signIn(user.email, user.password);
}

/** Sends every due mail; the e-ticket mails, parsed. */
async function sendMails(t: TestApp, dir: string, walletSecretsKey: Buffer) {
  const mails = await sendDueMails(t, dir, walletSecretsKey);
  // The subjects are German (the event's language), encoded: the e-ticket mails are those with the PDF.
  return mails.filter((m) => m.parts.some((p) => p.contentType === 'application/pdf'));
}

/** The save links of a mail's text part. */
function linksOf(mail: ReturnType<typeof parseMime>): string[] {
  const text = mail.parts.find((p) => p.contentType === 'text/plain')?.text ?? '';
  return text.match(/https:\/\/pay\.google\.com\/gp\/v\/save\/[A-Za-z0-9._-]+/g) ?? [];
}

async function emailJob(t: TestApp, orderId: string) {
  return t.database.db
    .selectFrom('email_jobs')
    .select(['status', 'notes'])
    .where('order_id', '=', orderId)
    .where('kind', '=', 'etickets')
    .executeTakeFirstOrThrow();
}

describe('Google Wallet links', () => {
  const t = useTestApp({ env: { WALLET_SECRETS_KEY: SECRETS_KEY } });
  let dir: string;
  let sale: Sale;
  let owner: DashboardSession;
  let order: { id: string; order_no: string };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'marquee-google-wallet-'));
    sale = await setupSale(t, {
      event: {
        title: 'Nachtkonzert',
        timezone: 'Europe/Berlin',
        venue: { name: 'Großer Saal' },
        performances: [{ starts_at: STARTS_AT, capacity: 100 }],
        ticket_types: [{ name: 'Parkett', price_minor: 3500, quantity: null }],
      },
    });
    // The event's buyers read German: the link's texts are tagged so.
    await t.database.db.updateTable('events').set({ language: 'de' }).where('id', '=', sale.event.id).execute();
    owner = await memberOf(t, sale.org.id, 'owner', 'google-owner@example.com');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('unconfigured: GET and the link answer 404 saying so', async () => {
    const notConfigured = problemOf(
      404,
      'Google Wallet is not configured for this organizer: configure it in the dashboard (PUT /dashboard/v1/organizer/wallet/google).',
      'resource_not_found',
    );
    const res = await t.dash(owner, 'GET', SETTINGS);
    assert.equal(res.statusCode, 404, res.body);
    assert.deepEqual(res.json(), notConfigured);
    order = await placeOrder(t, sale, {}, 2);
    const link = await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}/google_wallet`);
    assert.deepEqual([link.statusCode, link.json()], [404, notConfigured]);
  });

  test('bad issuer ids and key files answer 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [
        { issuer_id: '33880000x' },
        'issuer_id must be the Google Wallet issuer id: 1 to 32 digits, as the Google Pay & Wallet Console shows it.',
        'issuer_id',
      ],
      [
        { issuer_id: '1'.repeat(33) },
        'issuer_id must be the Google Wallet issuer id: 1 to 32 digits, as the Google Pay & Wallet Console shows it.',
        'issuer_id',
      ],
      [
        { service_account_key: 'not { json' },
        'service_account_key is not JSON: give the whole key file Google Cloud downloads for the service account (docs/tickets.md, "Wallet settings and their keys").',
        'service_account_key',
      ],
      [
        { service_account_key: keyFile({ type: 'authorized_user' }) },
        'service_account_key is not a service-account key: its "type" must be "service_account".',
        'service_account_key',
      ],
      [
        { service_account_key: '[1, 2]' },
        'service_account_key is not a service-account key: its "type" must be "service_account".',
        'service_account_key',
      ],
      [
        { service_account_key: keyFile({ client_email: undefined }) },
        'service_account_key has no "client_email".',
        'service_account_key',
      ],
      [
        { service_account_key: keyFile({ private_key_id: '' }) },
        'service_account_key has no "private_key_id".',
        'service_account_key',
      ],
      [
        { service_account_key: keyFile({ private_key: 'not a key' }) },
        'service_account_key\'s "private_key" is not an RSA private key in PEM.',
        'service_account_key',
      ],
      [
        { service_account_key: keyFile({ private_key: ecKeyPem }) },
        'service_account_key\'s "private_key" is not an RSA private key in PEM.',
        'service_account_key',
      ],
    ];
    for (const [overrides, detail, param] of cases) {
      const res = await t.dash(owner, 'PUT', SETTINGS, settingsBody(overrides));
      assert.deepEqual(res.json(), problemOf(400, detail, 'parameter_invalid', param), JSON.stringify(overrides));
    }
    const stored = await t.database.db.selectFrom('google_wallet_settings').selectAll().execute();
    assert.deepEqual(stored, []);
  });

  test('a role without the team permission gets 403', async () => {
    const manager = await memberOf(t, sale.org.id, 'manager', 'google-manager@example.com');
    for (const [method, body] of [['GET'], ['PUT', settingsBody()], ['DELETE']] as const) {
      const res = await t.dash(manager, method, SETTINGS, body);
      assert.deepEqual(
        res.json(),
        problemOf(
          403,
          'Your role (manager) does not include the `team` permission this operation needs. An owner can change your role.',
          'role_forbidden',
          'team',
        ),
        method,
      );
    }
  });

  test('PUT stores the settings sealed; PUT and GET answer them without the key; the audit log has no key', async () => {
    const put = await t.dash(owner, 'PUT', SETTINGS, settingsBody());
    assert.equal(put.statusCode, 200, put.body);
    const body = put.json<Record<string, string>>();
    assert.match(body.updated_at!, ISO);
    assert.deepEqual(body, {
      issuer_id: ISSUER_ID,
      service_account_email: ACCOUNT,
      key_id: KEY_ID,
      updated_at: body.updated_at,
    });
    const get = await t.dash(owner, 'GET', SETTINGS);
    assert.deepEqual([get.statusCode, get.json()], [200, body]);
    assert.ok(!get.body.includes('PRIVATE KEY'));

    const row = await t.database.db
      .selectFrom('google_wallet_settings')
      .selectAll()
      .where('organizer_id', '=', sale.org.id)
      .executeTakeFirstOrThrow();
    assert.match(row.sealed_private_key, /^v1\./);
    assert.ok(!row.sealed_private_key.includes('PRIVATE KEY'));

    const log = await t.dash(owner, 'GET', '/dashboard/v1/audit_log?action=updateGoogleWalletSettings');
    const entries = log.json<{ data: Array<{ action: string; target: { type: string; id: string } }> }>().data;
    assert.deepEqual(
      entries.map((e) => [e.action, e.target.type, e.target.id]),
      [['updateGoogleWalletSettings', 'organizer', sale.org.id]],
    );
    assert.ok(!log.body.includes('PRIVATE KEY'), 'no key in the audit log');
    assert.ok(!log.body.includes(row.sealed_private_key), 'not even sealed');
  });

  test('the link: a JWT signed RS256 by the service account, with a class and an object per ticket', async () => {
    const res = await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}/google_wallet`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { url } = res.json<{ url: string }>();
    assert.ok(url.startsWith(SAVE_URL), url);
    const jwt = url.slice(SAVE_URL.length);
    assert.deepEqual(decodeProtectedHeader(jwt), { alg: 'RS256', typ: 'JWT', kid: KEY_ID });
    const { payload } = await jwtVerify(jwt, rsa.publicKey, {
      algorithms: ['RS256'],
      issuer: ACCOUNT,
      audience: 'google',
      currentDate: t.clock.now(),
    });
    assert.equal(payload.iat, Math.floor(t.clock.now().getTime() / 1000));

    const tickets = await t.database.db
      .selectFrom('tickets')
      .select(['id', 'ticket_no', 'serial_no', 'holder_first_name', 'holder_last_name'])
      .where('order_id', '=', order.id)
      .orderBy('position')
      .execute();
    assert.equal(tickets.length, 2);
    const organizer = await t.database.db
      .selectFrom('organizers')
      .select('name')
      .where('id', '=', sale.org.id)
      .executeTakeFirstOrThrow();
    const de = (value: string) => ({ defaultValue: { language: 'de', value } });
    const classId = `${ISSUER_ID}.${sale.performanceId}`;
    assert.deepEqual(payload, {
      iss: ACCOUNT,
      aud: 'google',
      typ: 'savetowallet',
      iat: payload.iat,
      origins: [],
      payload: {
        eventTicketClasses: [
          {
            id: classId,
            issuerName: organizer.name,
            eventName: de('Nachtkonzert'),
            venue: { name: de('Großer Saal'), address: de('Großer Saal') },
            // 18:30 UTC is 19:30 in Berlin in March (CET, +01:00).
            dateTime: { start: '2027-03-12T19:30:00+01:00' },
            reviewStatus: 'UNDER_REVIEW',
          },
        ],
        eventTicketObjects: tickets.map((ticket) => ({
          id: `${ISSUER_ID}.${ticket.id}`,
          classId,
          state: 'ACTIVE',
          barcode: { type: 'QR_CODE', value: ticket.serial_no, alternateText: ticket.serial_no },
          ticketHolderName: 'Ada Lovelace',
          ticketNumber: ticket.ticket_no,
          ticketType: de('Parkett'),
          faceValue: { micros: 35_000_000, currencyCode: 'EUR' },
        })),
      },
    });
    assert.deepEqual(
      tickets.map((ticket) => [ticket.holder_first_name, ticket.holder_last_name]),
      [
        ['Ada', 'Lovelace'],
        ['Ada', 'Lovelace'],
      ],
    );
  });

  test('the e-ticket mail carries the same kind of link', async () => {
    const [mail, ...others] = await sendMails(t, dir, Buffer.from(SECRETS_KEY, 'hex'));
    assert.equal(others.length, 0);
    const links = linksOf(mail!);
    assert.equal(links.length, 1, 'one link in the text part');
    const html = mail!.parts.find((p) => p.contentType === 'text/html')?.text ?? '';
    assert.ok(html.includes(links[0]!), 'the HTML part links to it too');
    const { payload } = await jwtVerify(links[0]!.slice(SAVE_URL.length), rsa.publicKey, {
      issuer: ACCOUNT,
      audience: 'google',
      currentDate: t.clock.now(),
    });
    const objects = (payload.payload as { eventTicketObjects: Array<{ barcode: { value: string } }> })
      .eventTicketObjects;
    const serials = await t.database.db
      .selectFrom('tickets')
      .select('serial_no')
      .where('order_id', '=', order.id)
      .orderBy('position')
      .execute();
    assert.deepEqual(
      objects.map((o) => o.barcode.value),
      serials.map((s) => s.serial_no),
    );
    assert.deepEqual(await emailJob(t, order.id), { status: 'sent', notes: null });
  });

  test('a key sealed under another WALLET_SECRETS_KEY: the mail goes without the link, the log says why', async () => {
    await t.database.db
      .updateTable('google_wallet_settings')
      .set({ sealed_private_key: sealSecret(privateKeyPem, Buffer.alloc(32, 7)) })
      .where('organizer_id', '=', sale.org.id)
      .execute();
    const second = await placeOrder(t, sale);
    const [mail] = await sendMails(t, dir, Buffer.from(SECRETS_KEY, 'hex'));
    assert.ok(mail, 'the mail is sent');
    assert.deepEqual(linksOf(mail), []);
    assert.deepEqual(await emailJob(t, second.id), {
      status: 'sent',
      notes:
        'Google Wallet link left out: the stored service-account key does not open with WALLET_SECRETS_KEY (sealed under another key); give the Google Wallet settings again',
    });
    const link = await t.api(sale.org.key, 'GET', `/v1/orders/${second.id}/google_wallet`);
    assert.deepEqual(
      [link.statusCode, link.json()],
      [
        409,
        problemOf(
          409,
          'Google Wallet cannot sign: the stored service-account key does not open with WALLET_SECRETS_KEY (sealed under another key); give the Google Wallet settings again.',
          'invalid_state',
        ),
      ],
    );
  });

  test('DELETE answers 204 and removes the settings; GET answers 404 again', async () => {
    const res = await t.dash(owner, 'DELETE', SETTINGS);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    assert.equal((await t.dash(owner, 'GET', SETTINGS)).statusCode, 404);
    const again = await t.dash(owner, 'DELETE', SETTINGS);
    assert.equal(again.statusCode, 204);
  });
});

describe('Google Wallet without WALLET_SECRETS_KEY', () => {
  const t = useTestApp();

  test('PUT answers 409 telling the operator what to set', async () => {
    const org = await t.createOrganizer();
    const owner = await memberOf(t, org.id, 'owner', 'google-nokey@example.com');
    const res = await t.dash(owner, 'PUT', SETTINGS, settingsBody());
    assert.deepEqual(
      res.json(),
      problemOf(
        409,
        'Wallet keys cannot be stored: the operator has not set WALLET_SECRETS_KEY (32 random bytes, base64 or hex; docs/operations.md).',
        'invalid_state',
      ),
    );
  });
});
