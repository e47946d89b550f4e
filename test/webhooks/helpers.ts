/**
 * Shared pieces of the webhook tests: a fake DNS (no test ever touches the network),
 * an app wired to it, and verification through the official `standardwebhooks` package
 * at a chosen "now" (the package checks freshness against Date.now()).
 */
import type { FastifyBaseLogger } from 'fastify';
import { after, afterEach, before, beforeEach } from 'node:test';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../src/db/client.ts';
import type { DeliveryAttemptLogEntry } from '../../src/db/schema.ts';
import type { Resolver } from '../../src/webhooks/url-vetting.ts';
import type { WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import { createTestApp, type TestApp, type TestAppOptions, type TestOrganizer } from '../helpers/app.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../helpers/https-receiver.ts';

export const silentLogger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

const FAKE_DNS: Record<string, string[]> = {
  localhost: ['127.0.0.1'],
  'hooks.test.localhost': ['127.0.0.1'],
  'private.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'cgnat.test': ['100.64.0.1'],
  'ula.test': ['fd00::1'],
  'mapped.test': ['::ffff:192.168.1.1'],
  'mixed.test': ['93.184.216.34', '192.168.0.10'],
};

/** Test hostnames to fixed addresses; anything else does not resolve. */
export const fakeResolver: Resolver = async (hostname) => {
  const addresses = FAKE_DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** A delivery's attempt log (oldest first), with each entry's time as a Date. */
export async function attemptLogOf(
  db: Db,
  deliveryId: string,
): Promise<Array<Omit<DeliveryAttemptLogEntry, 'at'> & { at: Date }>> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('attempt_log')
    .where('id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  return row.attempt_log.map((entry) => ({ ...entry, at: new Date(entry.at) }));
}

/** createTestApp() with the fake resolver as the app's webhook DNS. */
export async function createWebhookTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestApp(opts);
  t.app.deps.webhookResolver = fakeResolver;
  return t;
}

export interface WebhookFixture {
  t: TestApp;
  org: TestOrganizer;
  receiver: HttpsReceiver;
  deps: WebhookWorkerDeps;
}

/**
 * The setup the delivery tests share, registered in the calling describe(): an app with
 * the fake DNS, an organizer, an HTTPS receiver (its log emptied and answering 200 again
 * before each test) and worker deps trusting it. The fields are filled in by before().
 * With `freshEndpoints`, every test starts with no endpoint, so nothing a test left
 * behind is due in the next one.
 */
export function useWebhookFixture(opts: { freshEndpoints?: boolean } = {}): WebhookFixture {
  const fixture = {} as WebhookFixture;
  before(async () => {
    fixture.receiver = await startHttpsReceiver();
    fixture.t = await createWebhookTestApp();
    fixture.org = await fixture.t.createOrganizer();
    fixture.deps = workerDepsFor(fixture.t, fixture.receiver);
  });
  after(async () => {
    await fixture.t.close();
    await fixture.receiver.close();
  });
  beforeEach(() => {
    fixture.receiver.requests.length = 0;
    fixture.receiver.setHandler((_req, res) => {
      res.writeHead(200).end();
    });
  });
  if (opts.freshEndpoints) {
    afterEach(async () => {
      await fixture.t.database.db.deleteFrom('webhook_endpoints').execute();
    });
  }
  return fixture;
}

/** Worker dependencies on the test app's database and clock, trusting the receiver's CA. */
export function workerDepsFor(t: TestApp, receiver: HttpsReceiver): WebhookWorkerDeps {
  return {
    config: t.config,
    db: t.database.db,
    clock: t.clock,
    logger: silentLogger,
    webhookResolver: fakeResolver,
    webhookCa: receiver.ca,
  };
}

/**
 * Verifies a received delivery with the standardwebhooks package, as of `nowMs`
 * (default: its own webhook-timestamp, so a request signed at a ManualClock time
 * verifies; freshness itself is tested with the real clock). Returns the parsed body.
 */
export function verifyDelivery(secret: string, req: ReceivedRequest, nowMs?: number): unknown {
  const headers = {
    'webhook-id': String(req.headers['webhook-id']),
    'webhook-timestamp': String(req.headers['webhook-timestamp']),
    'webhook-signature': String(req.headers['webhook-signature']),
  };
  const at = nowMs ?? Number(headers['webhook-timestamp']) * 1000;
  const realNow = Date.now;
  Date.now = () => at;
  try {
    return new Webhook(secret).verify(req.body, headers);
  } finally {
    Date.now = realNow;
  }
}
