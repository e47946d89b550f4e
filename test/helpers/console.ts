/**
 * A live Marquee for the console's browser tests (docs/console.md, "Browser tests"): the
 * test app of ./app.ts on a real loopback port, serving the built console at /app/ (built
 * first when dist/console is missing or stale, as `npm start` would), with an organizer,
 * its keys and its owner (a person: the console signs in as one, docs/dashboard.md); and
 * the sign-in every test starts with.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { buildConsole, consoleNeedsBuild } from '../../scripts/build.mjs';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import { createMailer } from '../../src/mail/transport.ts';
import { inThreadRenderer } from './mail-renderer.ts';
import { parseMime, startSmtpReceiver } from './smtp-receiver.ts';
import { createTestApp, type TestApp, type TestAppOptions, type TestOrganizer, type TestUser } from './app.ts';
import { BROWSER_SKIP } from './browser.ts';

interface ConsoleService {
  t: TestApp;
  org: TestOrganizer;
  /** The organizer's owner, who signs in to the console: every permission. */
  owner: TestUser;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
}

const BUILD_LOCK = path.resolve(import.meta.dirname, '../../dist/.console-build-lock');
/** A lock older than this was left by a killed test run. */
const STALE_LOCK_MS = 120_000;

/**
 * Builds dist/console when it is older than its sources. Test files run as parallel
 * processes: the first takes a lock directory and builds, the others wait for it, so no
 * file is served a directory that Vite is emptying.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  while (consoleNeedsBuild()) {
    try {
      mkdirSync(BUILD_LOCK);
    } catch {
      const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
      await sleep(200);
      continue;
    }
    try {
      if (consoleNeedsBuild()) assert.equal(buildConsole(), 0, 'the console build failed');
    } finally {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
    }
  }
}

/** Starts the service in a `before` hook (unless browser tests are skipped) and closes it after. */
export function useConsoleService(opts: TestAppOptions = {}): ConsoleService {
  const service = {} as ConsoleService;
  before(async () => {
    if (BROWSER_SKIP) return;
    await ensureConsoleBuilt();
    service.t = await createTestApp(opts);
    await service.t.app.listen({ host: '127.0.0.1', port: 0 });
    service.baseUrl = `http://127.0.0.1:${(service.t.app.server.address() as AddressInfo).port}`;
    service.org = await service.t.createOrganizer({
      name: 'Lighthouse Jazz Club',
      currency: 'EUR',
      timezone: 'Europe/Berlin',
    });
    service.owner = await service.t.createUser({
      organizerId: service.org.id,
      role: 'owner',
      name: 'Olive Owner',
    });
  });
  after(async () => {
    await service.t?.close();
  });
  return service;
}

/**
 * Opens `path` (default /app/), signs in as `who` (its e-mail address and password, then
 * `totp` when given and asked for) and waits for the signed-in frame.
 */
export async function signIn(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
  path = '/app/',
  totp?: () => string,
): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('E-mail address').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByLabel('Password').press('Enter');
  if (totp !== undefined) {
    await page.getByLabel('Authentication code').fill(totp());
    await page.getByLabel('Authentication code').press('Enter');
  }
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

/**
 * Sends the mails the service has queued (the worker's job, which the test app does not
 * run) to a loopback SMTP receiver, and answers the one-time link the mail to `recipient`
 * carries, as a path of this service (`/app/invite?token=…`): the link is made with the
 * service's PUBLIC_URL, not the test's port.
 */
export async function mailedLink(t: TestApp, recipient: string): Promise<string> {
  const smtp = await startSmtpReceiver();
  const from = 'Marquee <no-reply@localhost>';
  const mailer = createMailer({ smtpUrl: smtp.url, from, outboxDir: '/nonexistent' });
  try {
    t.clock.advance(1000);
    const sent = await runEmailJobsOnce({
      db: t.database.db,
      mailer,
      renderer: inThreadRenderer(from),
      clock: t.clock,
    });
    const messages = await smtp.waitFor(sent);
    const mail = [...messages].reverse().find((m) => m.to.includes(recipient));
    assert.ok(mail, `no mail to ${recipient} among ${sent}`);
    const text = parseMime(mail.raw).parts.find((p) => p.contentType === 'text/plain')!.text;
    const link = /https?:\/\/\S+(\/app\/(?:invite|reset|setup)\?token=[\w-]+)/.exec(text);
    assert.ok(link, text);
    return link[1]!;
  } finally {
    mailer.close();
    await smtp.close();
  }
}

/** The link texts of the console's main navigation. */
export const navigation = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

/** An owner's whole navigation: every screen. */
export const OWNER_NAVIGATION = [
  'Events',
  'Sell',
  'Orders',
  'Webhooks',
  'Door',
  'Attendance',
  'Devices',
  'Team',
  'Developer',
  'Settings',
  'Audit log',
];

/** A manager's: all but Team, Developer, Settings and Audit log. */
export const MANAGER_NAVIGATION = ['Events', 'Sell', 'Orders', 'Webhooks', 'Door', 'Attendance', 'Devices'];

/** A box office's: no Devices (docs/console.md, "Roles"). */
export const BOX_OFFICE_NAVIGATION = ['Events', 'Sell', 'Orders', 'Webhooks', 'Door', 'Attendance'];

/** A viewer's: what `read` opens. */
export const VIEWER_NAVIGATION = ['Events', 'Orders', 'Webhooks', 'Attendance'];
