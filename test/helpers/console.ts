/**
 * A live Marquee for the console's browser tests (docs/console.md, "Browser tests"): the
 * test app of ./app.ts on a real loopback port, serving the built console at /app/ (built
 * first when dist/console is missing or stale, as `npm start` would), with an organizer
 * and its keys; and the sign-in every test starts with.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { buildConsole, consoleNeedsBuild } from '../../scripts/build.mjs';
import { createTestApp, type TestApp, type TestAppOptions, type TestOrganizer } from './app.ts';
import { BROWSER_SKIP } from './browser.ts';

interface ConsoleService {
  t: TestApp;
  org: TestOrganizer;
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
  });
  after(async () => {
    await service.t?.close();
  });
  return service;
}

/** Opens `path` (default /app/), signs in with `key` and waits for the signed-in frame. */
export async function signIn(page: Page, baseUrl: string, key: string, path = '/app/'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('API key').fill(key);
  await page.getByLabel('API key').press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
