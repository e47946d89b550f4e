/**
 * How Marquee serves the console (docs/console.md, "How it is served"): the built app at
 * /app/ with its security headers, exactly; index.html for every /app/ path that is not a
 * file (deep links), a 404 problem for a missing file; nothing of it in the OpenAPI
 * document; and CONSOLE_ENABLED=false turning it off. Through HTTP (inject), no browser.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { CONSOLE_DIR } from '../../src/http/console/serve-console.ts';
import { createTestApp, problemOf, useTestApp } from '../helpers/app.ts';
import { ensureConsoleBuilt } from '../helpers/console.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; " +
  "connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'; " +
  "base-uri 'none'";
const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'permissions-policy': 'camera=(self), microphone=(), geolocation=(), payment=(), usb=(), display-capture=()',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};
const securityHeadersOf = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [name, headers[name]]));

describe('the console at /app/', () => {
  before(ensureConsoleBuilt);
  const t = useTestApp();
  const index = () => readFileSync(`${CONSOLE_DIR}/index.html`, 'utf8');

  test('/app/ is the built index.html, not cached, with the security headers exactly', async () => {
    const res = await t.inject({ method: 'GET', url: '/app/' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.deepEqual(securityHeadersOf(res.headers), SECURITY_HEADERS);
    assert.equal(res.body, index());
    // The page loads its script as a file: the CSP allows no inline script.
    assert.match(res.body, /<script type="module" crossorigin src="\/app\/assets\/index-[\w-]+\.js"><\/script>/);
    assert.doesNotMatch(res.body, /<script(?![^>]*\ssrc=)[^>]*>/);
  });

  test('deep links answer index.html; assets are cached for good; a missing file is a 404 problem', async () => {
    for (const url of ['/app/events', '/app/events/3f1c2a9e-0000-4000-8000-000000000000', '/app/door', '/app']) {
      const res = await t.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, index(), url);
      assert.deepEqual(securityHeadersOf(res.headers), SECURITY_HEADERS, url);
    }
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(index())![1]!;
    const asset = await t.inject({ method: 'GET', url: script });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.deepEqual(securityHeadersOf(asset.headers), SECURITY_HEADERS);

    const missing = await t.inject({ method: 'GET', url: '/app/assets/missing.js' });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), problemOf(404, 'No console file at /app/assets/missing.js.', 'unknown_endpoint'));
    assert.deepEqual(securityHeadersOf(missing.headers), SECURITY_HEADERS);
    // The build stamp is not a file of the app.
    assert.equal((await t.inject({ method: 'GET', url: '/app/.built' })).statusCode, 404);
  });

  test('the offline shell service worker is served as script, never cached, at the scope /app/', async () => {
    const res = await t.inject({ method: 'GET', url: '/app/service-worker.js' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
    // A new build's worker is fetched at the next visit (docs/console.md, "Offline shell").
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.equal(res.headers['service-worker-allowed'], undefined);
    assert.deepEqual(securityHeadersOf(res.headers), SECURITY_HEADERS);
    assert.equal(res.body, readFileSync(`${CONSOLE_DIR}/service-worker.js`, 'utf8'));
  });

  test('the console is not in the OpenAPI document', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    assert.deepEqual(
      Object.keys(doc.paths).filter((path) => path.startsWith('/app')),
      [],
    );
  });

  test('CONSOLE_ENABLED=false serves no console', async () => {
    const off = await createTestApp({ env: { CONSOLE_ENABLED: 'false' } });
    try {
      assert.equal(off.config.consoleEnabled, false);
      for (const url of ['/app/', '/app/events']) {
        const res = await off.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 404);
        assert.equal(res.headers['content-security-policy'], undefined);
        assert.equal(res.json().code, 'unknown_endpoint');
      }
    } finally {
      await off.close();
    }
  });
});
