/**
 * Slow and greedy clients over real sockets (docs/operations.md, "Slow and greedy
 * clients"): a request must arrive within its deadlines, idle keep-alive connections
 * close, and connections are capped per address and in all. Deadlines are short here
 * (500 ms for headers, 1 s for a whole request); Node checks them every 125 ms then.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN, createTestApp, problemOf, type TestApp } from '../helpers/app.ts';
import { gatedResolver } from '../helpers/gated-resolver.ts';
import { listenOnLoopback, openRaw, parseRawResponse, type RawConnection } from '../helpers/raw-http.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROBLEM = 'application/problem+json; charset=utf-8';
const CHECK_INTERVAL_MS = 125;
/** Scheduling slack on a shared machine, on top of a deadline and its check interval. */
const SLACK_MS = 400;

const timeoutDetail =
  'The request did not arrive in time: headers are read for at most 500 ms, the whole request for at most 1 s.';

/** Writes `piece` every `everyMs` until the connection closes; gives up (closes it) after 5 s. */
function trickle(conn: RawConnection, piece: string, everyMs: number): void {
  const timer = setInterval(() => conn.write(piece), everyMs);
  const giveUp = setTimeout(() => conn.socket.destroy(), 5000);
  void conn.closed.then(() => {
    clearInterval(timer);
    clearTimeout(giveUp);
  });
}

function assert408(conn: RawConnection) {
  const res = parseRawResponse(conn.received());
  assert.equal(res.statusLine, 'HTTP/1.1 408 Request Timeout');
  assert.equal(res.headers['content-type'], PROBLEM);
  assert.match(res.headers['x-request-id']!, UUID_RE);
  assert.equal(res.headers['access-control-allow-origin'], '*');
  assert.equal(res.headers.connection, 'close');
  assert.deepEqual(JSON.parse(res.body), {
    ...problemOf(408, timeoutDetail, 'request_timeout'),
    title: 'Request Timeout',
  });
}

describe('request deadlines over a real socket', () => {
  let t: TestApp;
  let port: number;
  const dns = gatedResolver();
  before(async () => {
    t = await createTestApp({
      env: { HTTP_REQUEST_TIMEOUT: '1s', HTTP_HEADERS_TIMEOUT: '500ms', HTTP_KEEP_ALIVE_TIMEOUT: '300ms' },
      appOptions: { webhookResolver: dns.resolver },
    });
    port = await listenOnLoopback(t.app);
  });
  after(() => t.close());

  test('a body trickled one byte at a time is cut at the request deadline with a 408', async () => {
    const conn = await openRaw(port);
    conn.write(
      `POST /admin/v1/organizers HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
    );
    trickle(conn, ' ', 100);
    const closedAfter = await conn.closed;
    assert.ok(
      closedAfter >= 900 && closedAfter < 1000 + CHECK_INTERVAL_MS + SLACK_MS,
      `closed after ${closedAfter.toFixed(0)} ms`,
    );
    assert408(conn);
  });

  test('headers trickled without end are cut at the headers deadline with a 408', async () => {
    const conn = await openRaw(port);
    conn.write('GET /healthz HTTP/1.1\r\nhost: x\r\n');
    trickle(conn, 'x-slow: 1\r\n', 100);
    const closedAfter = await conn.closed;
    assert.ok(
      closedAfter >= 450 && closedAfter < 500 + CHECK_INTERVAL_MS + SLACK_MS,
      `closed after ${closedAfter.toFixed(0)} ms`,
    );
    assert408(conn);
  });

  test('a connection that sends nothing is closed at the headers deadline', async () => {
    const conn = await openRaw(port);
    const giveUp = setTimeout(() => conn.socket.destroy(), 5000);
    void conn.closed.then(() => clearTimeout(giveUp));
    const closedAfter = await conn.closed;
    assert.ok(
      closedAfter >= 450 && closedAfter < 500 + CHECK_INTERVAL_MS + SLACK_MS,
      `closed after ${closedAfter.toFixed(0)} ms`,
    );
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const conn = await openRaw(port);
    conn.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await conn.waitFor('{"status":"ok"}');
    const answeredAt = performance.now();
    await conn.closed;
    const idleFor = performance.now() - answeredAt;
    // Node keeps the socket about one second past the advertised timeout, so a client
    // reusing it at the last moment is not cut off.
    assert.ok(idleFor >= 250 && idleFor < 300 + 1000 + SLACK_MS, `closed after ${idleFor.toFixed(0)} ms idle`);
    assert.match(conn.received(), /^HTTP\/1\.1 200 OK\r\n/);
  });

  test('a request that arrived in time may take longer than the deadline to handle', async () => {
    const org = await t.createOrganizer();
    const answer = fetch(`http://127.0.0.1:${port}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://slow-dns.example/h', event_types: ['order.created'] }),
    });
    await dns.waitForCalls(1);
    await new Promise((resolve) => setTimeout(resolve, 1000 + 2 * CHECK_INTERVAL_MS));
    dns.open();
    const res = await answer;
    assert.equal(res.status, 201);
    assert.equal((await res.json()).url, 'https://slow-dns.example/h');
  });
});

describe('connection caps over a real socket', () => {
  test('per address: the connection beyond the cap is closed at once, the others keep working', async () => {
    const t = await createTestApp({ env: { HTTP_MAX_CONNECTIONS_PER_IP: '3' } });
    try {
      const port = await listenOnLoopback(t.app);
      const get = async (conn: RawConnection) => {
        const marker = randomUUID();
        conn.write(`GET /healthz HTTP/1.1\r\nhost: x\r\nx-request-id: ${marker}\r\n\r\n`);
        await conn.waitFor(`x-request-id: ${marker}`);
      };
      // Each answers a request, so the server has accepted (and counted) all three.
      const first = await Promise.all([openRaw(port), openRaw(port), openRaw(port)]);
      for (const conn of first) await get(conn);

      const extra = await openRaw(port);
      const closedAfter = await extra.closed;
      assert.ok(closedAfter < 200, `extra connection closed after ${closedAfter.toFixed(0)} ms`);
      assert.equal(extra.received(), '');

      for (const conn of first) await get(conn);

      // A closed connection frees its place.
      first[0].socket.end();
      await first[0].closed;
      let replacement: RawConnection | undefined;
      for (let attempt = 0; attempt < 20 && !replacement; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const conn = await openRaw(port);
        const outcome = await Promise.race([
          conn.closed.then(() => 'closed'),
          new Promise((resolve) => setTimeout(() => resolve('open'), 100)),
        ]);
        if (outcome === 'open') replacement = conn;
      }
      assert.ok(replacement, 'no connection was accepted after one of the three closed');
      await get(replacement);
      for (const conn of [...first, replacement]) conn.socket.destroy();
    } finally {
      await t.close();
    }
  });

  test('in all: the connection beyond HTTP_MAX_CONNECTIONS is closed at once', async () => {
    const t = await createTestApp({ env: { HTTP_MAX_CONNECTIONS: '2', HTTP_MAX_CONNECTIONS_PER_IP: '0' } });
    try {
      const port = await listenOnLoopback(t.app);
      const open = await Promise.all([openRaw(port), openRaw(port)]);
      for (const conn of open) {
        conn.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
        await conn.waitFor('{"status":"ok"}');
      }
      const extra = await openRaw(port);
      const closedAfter = await extra.closed;
      assert.ok(closedAfter < 200, `extra connection closed after ${closedAfter.toFixed(0)} ms`);
      for (const conn of open) assert.equal(conn.isClosed(), false);
      for (const conn of open) conn.socket.destroy();
    } finally {
      await t.close();
    }
  });
});
