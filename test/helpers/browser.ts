/**
 * A real browser for tests: Debian's Chromium (/usr/bin/chromium, `apt-get install -y
 * chromium`; never a downloaded one) driven by playwright-core. One browser per test file
 * (`useBrowser()` launches it in a `before` hook), a new context per test (fresh storage,
 * cookies and permissions), closed after the test; screenshots under test-artifacts/.
 *
 * Browser tests run on the embedded database only: with TEST_DATABASE_URL set (CI's
 * PostgreSQL half) `BROWSER_SKIP` is a reason to skip them, since what they check is the
 * page, not the engine.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
/** Where screenshots go (gitignored). */
const ARTIFACTS_DIR = path.join(ROOT, 'test-artifacts');

/**
 * The flags that work on this machine and in CI containers: headless, no sandbox (root in
 * a container), no GPU, and nothing that reaches the network by itself (QUIC, component
 * updates, sync, background requests). playwright-core gives every launch a fresh
 * temporary profile (--user-data-dir), removed at close.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Why browser tests are skipped here, or false when they run. Without Chromium they are
 * skipped on a developer's machine, never in CI (`CI` set), where .ci/run installs it:
 * there a missing browser fails the tests instead of passing them unseen.
 */
export const BROWSER_SKIP: string | false = process.env.TEST_DATABASE_URL
  ? 'browser tests run on the embedded database only (docs/console.md)'
  : !existsSync(CHROMIUM) && !process.env.CI
    ? `no Chromium at ${CHROMIUM}: apt-get install -y chromium`
    : false;

interface BrowserHandle {
  /** A new context with `options` (locale en-US and the UTC zone unless given), closed after the current test. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in a new context; its console errors and uncaught exceptions are collected. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** What the page logged as errors (CSP violations included, failed API calls not) and threw, since it opened. */
  errorsOf(page: Page): string[];
  /**
   * axe-core's serious and critical violations on the page as it is now, one line each
   * (rule, help, the elements). axe is injected through the DevTools protocol, which a
   * page's Content-Security-Policy does not block.
   */
  seriousViolations(page: Page): Promise<string[]>;
  /** A full-page screenshot to test-artifacts/<area>/<name>.png. */
  screenshot(page: Page, area: string, name: string): Promise<string>;
}

/**
 * One Chromium for the calling test file. `extraArgs` adds launch flags for a file that
 * needs them (e.g. a fake camera: `--use-fake-device-for-media-stream`).
 */
export function useBrowser({ extraArgs = [] }: { extraArgs?: string[] } = {}): BrowserHandle {
  let browser: Browser | undefined;
  const open: BrowserContext[] = [];
  const errors = new WeakMap<Page, string[]>();
  before(async () => {
    if (BROWSER_SKIP) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      headless: true,
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((context) => context.close()));
  });
  after(async () => {
    await browser?.close();
  });

  const handle: BrowserHandle = {
    async newContext(options = {}) {
      if (!browser) throw new Error('useBrowser(): no browser (skipped, or used before its before() hook ran)');
      const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', ...options });
      // A page that does not show what a test waits for fails in seconds, not at the test's end.
      context.setDefaultTimeout(10_000);
      open.push(context);
      return context;
    },
    async newPage(options) {
      const page = await (await handle.newContext(options)).newPage();
      const log: string[] = [];
      errors.set(page, log);
      page.on('console', (message) => {
        // An API refusal is logged by the browser as a failed resource; the tests assert those
        // answers themselves. What stays: CSP violations, script errors, anything else logged.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource:'))
          log.push(message.text());
      });
      page.on('pageerror', (error) => log.push(`uncaught: ${error.message}`));
      return page;
    },
    errorsOf: (page) => errors.get(page) ?? [],
    async seriousViolations(page) {
      const { violations } = await new AxeBuilder({ page }).analyze();
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
    },
    async screenshot(page, area, name) {
      const dir = path.join(ARTIFACTS_DIR, area);
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
  };
  return handle;
}
