/**
 * Apple Wallet passes (docs/tickets.md, "Apple Wallet"): the dashboard's settings checked
 * and stored with the key sealed, and GET /v1/tickets/{id}/pass.pkpass read back as Wallet
 * would: pass.json, the manifest's SHA-1 of every file, and the PKCS #7 signature verified
 * by `openssl smime` against a CA made here with the openssl CLI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { problemOf, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { setupSale, BUYER, type Sale } from '../helpers/orders.ts';
import { makePassCertificates, type PassCertificates } from '../helpers/wallet-certificates.ts';
import { sendDueMails } from '../helpers/mail-renderer.ts';
import { header } from '../helpers/smtp-receiver.ts';

const run = promisify(execFile);
const SECRETS_KEY = '11'.repeat(32);
const PASS_TYPE = 'pass.test.marquee';
const TEAM = 'TEAMID1234';
const STARTS_AT = '2027-03-12T18:30:00.000Z';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let dir: string;
let pem: PassCertificates['pem'];
let certificates: PassCertificates;

before(async () => {
  certificates = await makePassCertificates(PASS_TYPE, TEAM);
  ({ dir, pem } = certificates);
});
after(() => certificates.remove());

const settingsBody = (overrides: Record<string, unknown> = {}) => ({
  pass_type_identifier: PASS_TYPE,
  team_identifier: TEAM,
  certificate_pem: pem['signer.pem'],
  private_key_pem: pem['signer.key'],
  wwdr_certificate_pem: pem['ca.pem'],
  background_color: '#102030',
  ...overrides,
});

async function ownerOf(t: TestApp, organizerId: string, email: string): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role: 'owner', email });
  return t.signIn(user.email, user.password);
}

describe('Apple Wallet passes', () => {
  const t = useTestApp({ env: { WALLET_SECRETS_KEY: SECRETS_KEY } });
  let sale: Sale;
  let owner: DashboardSession;
  let ticketId: string;
  let serialNo: string;
  let ticketNo: string;

  before(async () => {
    sale = await setupSale(t, {
      event: {
        title: 'Nachtkonzert',
        timezone: 'Europe/Berlin',
        venue: { name: 'Großer Saal' },
        performances: [{ starts_at: STARTS_AT, capacity: 100 }],
        ticket_types: [{ name: 'Parkett', price_minor: 3500, quantity: null }],
      },
    });
    owner = await ownerOf(t, sale.org.id, 'apple-owner@example.com');
    const res = await t.api(sale.org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeIds[0], quantity: 1 }],
      buyer: BUYER,
      tender: 'cash',
    });
    assert.equal(res.statusCode, 201, res.body);
    const ticket = await t.database.db
      .selectFrom('tickets')
      .select(['id', 'serial_no', 'ticket_no'])
      .where('order_id', '=', res.json<{ id: string }>().id)
      .executeTakeFirstOrThrow();
    ({ id: ticketId, serial_no: serialNo, ticket_no: ticketNo } = ticket);
  });

  test('unconfigured: GET says so and the pass answers 409', async () => {
    const res = await t.dash(owner, 'GET', '/dashboard/v1/organizer/wallet/apple');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ configured: boolean }>().configured, false);
    const pass = await t.api(sale.org.key, 'GET', `/v1/tickets/${ticketId}/pass.pkpass`);
    assert.equal(pass.statusCode, 409, pass.body);
    assert.equal(pass.json<{ code: string }>().code, 'invalid_state');
  });

  test('bad certificates and keys answer 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ private_key_pem: pem['other.key'] }, 'private_key_pem'],
      [{ certificate_pem: 'not a certificate' }, 'certificate_pem'],
      [{ private_key_pem: 'not a key' }, 'private_key_pem'],
      [{ pass_type_identifier: 'pass.other.example' }, 'pass_type_identifier'],
      [{ team_identifier: 'OTHERTEAM1' }, 'team_identifier'],
    ];
    for (const [overrides, param] of cases) {
      const res = await t.dash(owner, 'PUT', '/dashboard/v1/organizer/wallet/apple', settingsBody(overrides));
      assert.equal(res.statusCode, 400, `${param}: ${res.body}`);
      assert.equal(res.json<{ param: string }>().param, param);
    }
    const mismatch = await t.dash(
      owner,
      'PUT',
      '/dashboard/v1/organizer/wallet/apple',
      settingsBody({ private_key_pem: pem['other.key'] }),
    );
    assert.deepEqual(
      mismatch.json(),
      problemOf(
        400,
        'The private key does not match the certificate: give the key exported with this pass type certificate.',
        'parameter_invalid',
        'private_key_pem',
      ),
    );
  });

  test('PUT stores the settings, answers them without the key, and seals the key', async () => {
    const res = await t.dash(owner, 'PUT', '/dashboard/v1/organizer/wallet/apple', settingsBody());
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Record<string, string>>();
    assert.match(body.updated_at!, ISO);
    assert.deepEqual(body, {
      configured: true,
      pass_type_identifier: PASS_TYPE,
      team_identifier: TEAM,
      certificate_subject: `UID=${PASS_TYPE}, CN=Pass Type ID: ${PASS_TYPE}, OU=${TEAM}, O=Marquee Test, C=DE`,
      certificate_expires_at: new Date(new X509Certificate(pem['signer.pem']).validTo).toISOString(),
      background_color: 'rgb(16, 32, 48)',
      foreground_color: null,
      label_color: null,
      updated_at: body.updated_at,
    });
    const row = await t.database.db
      .selectFrom('apple_wallet_settings')
      .selectAll()
      .where('organizer_id', '=', sale.org.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.sealed_private_key.includes('PRIVATE KEY'));
    assert.match(row.sealed_private_key, /^v1\./);
  });

  test('the pass: pass.json, manifest hashes and a signature openssl verifies', async () => {
    const res = await t.api(sale.org.key, 'GET', `/v1/tickets/${ticketId}/pass.pkpass`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/vnd.apple.pkpass');
    assert.equal(res.headers['content-disposition'], `attachment; filename="ticket-${ticketNo}.pkpass"`);
    assert.equal(res.headers['cache-control'], 'no-store');
    const out = join(dir, 'pass');
    await writeFile(join(dir, 'pass.pkpass'), res.rawPayload);
    await run('unzip', ['-o', '-q', 'pass.pkpass', '-d', 'pass'], { cwd: dir });
    const pass = JSON.parse(await readFile(join(out, 'pass.json'), 'utf8'));
    assert.equal(pass.passTypeIdentifier, PASS_TYPE);
    assert.equal(pass.teamIdentifier, TEAM);
    assert.equal(pass.serialNumber, ticketId);
    assert.equal(new Date(pass.relevantDate).toISOString(), STARTS_AT);
    assert.deepEqual(pass.barcodes, [
      { format: 'PKBarcodeFormatQR', message: serialNo, messageEncoding: 'iso-8859-1', altText: ticketNo },
    ]);
    assert.equal(pass.backgroundColor, 'rgb(16, 32, 48)');
    const fields = [...pass.eventTicket.primaryFields, ...pass.eventTicket.secondaryFields];
    assert.deepEqual(
      fields.map((f: { key: string; value: string }) => [f.key, f.value]).filter(([key]: string[]) => key !== 'date'),
      [
        ['event', 'Nachtkonzert'],
        ['venue', 'Großer Saal'],
      ],
    );
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as Record<string, string>;
    const files = (await readdir(out, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(out.length + 1))
      .filter((name) => name !== 'manifest.json' && name !== 'signature')
      .sort();
    assert.deepEqual(Object.keys(manifest).sort(), files);
    for (const name of files) {
      const sha1 = createHash('sha1')
        .update(await readFile(join(out, name)))
        .digest('hex');
      assert.equal(manifest[name], sha1, name);
    }
    await run(
      'openssl',
      [
        'smime',
        '-verify',
        '-in',
        'pass/signature',
        '-inform',
        'DER',
        '-content',
        'pass/manifest.json',
        '-CAfile',
        'ca.pem',
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { cwd: dir },
    );
  });

  test('the e-ticket mail carries the pass', async () => {
    const mails = await sendDueMails(t, dir, Buffer.from(SECRETS_KEY, 'hex'));
    const etickets = mails.find((m) => header(m.headers, 'subject')?.startsWith('Your tickets'))!;
    const attached = etickets.parts.find((p) => p.contentType === 'application/vnd.apple.pkpass')!;
    assert.equal(attached.filename, `ticket-${ticketNo}.pkpass`);
    await writeFile(join(dir, 'mailed.pkpass'), attached.content);
    const { stdout } = await run('unzip', ['-p', 'mailed.pkpass', 'pass.json'], { cwd: dir });
    assert.equal(JSON.parse(stdout).barcodes[0].message, serialNo);
    const job = await t.database.db
      .selectFrom('email_jobs')
      .select(['status', 'notes'])
      .where('kind', '=', 'etickets')
      .where('organizer_id', '=', sale.org.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(job, { status: 'sent', notes: null });
  });

  test('DELETE removes the settings; the pass answers 409 again', async () => {
    const res = await t.dash(owner, 'DELETE', '/dashboard/v1/organizer/wallet/apple');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ configured: boolean }>().configured, false);
    const pass = await t.api(sale.org.key, 'GET', `/v1/tickets/${ticketId}/pass.pkpass`);
    assert.equal(pass.statusCode, 409, pass.body);
  });

  test('an expired certificate answers 400 naming its date', async () => {
    const expires = new Date(new X509Certificate(pem['signer.pem']).validTo);
    t.clock.advance(400 * 24 * 3600 * 1000);
    // The session expired meanwhile: sign in again.
    const later = await ownerOf(t, sale.org.id, 'apple-later@example.com');
    const res = await t.dash(later, 'PUT', '/dashboard/v1/organizer/wallet/apple', settingsBody());
    assert.deepEqual(
      res.json(),
      problemOf(
        400,
        `The certificate expired on ${expires.toISOString()}: create a new pass type certificate in the Apple developer account.`,
        'parameter_invalid',
        'certificate_pem',
      ),
    );
  });
});

describe('Apple Wallet without WALLET_SECRETS_KEY', () => {
  const t = useTestApp();

  test('PUT answers 409 telling the operator what to set', async () => {
    const org = await t.createOrganizer();
    const owner = await ownerOf(t, org.id, 'apple-nokey@example.com');
    const res = await t.dash(owner, 'PUT', '/dashboard/v1/organizer/wallet/apple', settingsBody());
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
