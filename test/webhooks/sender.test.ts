import assert from 'node:assert/strict';
import { getDefaultAutoSelectFamily, setDefaultAutoSelectFamily } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { createWebhookSender, type SendResult, type WebhookSender } from '../../src/webhooks/sender.ts';
import type { Resolver } from '../../src/webhooks/url-vetting.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceiverHandler } from '../helpers/https-receiver.ts';

// Every request in this file goes to the local receiver on 127.0.0.1.
const LOOPBACK_ONLY: Resolver = async (hostname) => {
  if (hostname === 'localhost' || hostname === 'hooks.test.localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const JSON_BODY = JSON.stringify({ type: 'order.created', timestamp: '2025-01-01T00:00:00Z', data: { note: 'é ✓' } });
const WEBHOOK_HEADERS = {
  'webhook-id': 'evt_123',
  'webhook-timestamp': '1614265330',
  'webhook-signature': 'v1,abc=',
};

let receiver: HttpsReceiver;
const senders: WebhookSender[] = [];

function sender(overrides: Partial<Parameters<typeof createWebhookSender>[0]> = {}): WebhookSender {
  const created = createWebhookSender({
    allowLoopback: true,
    resolver: LOOPBACK_ONLY,
    timeoutMs: 5000,
    ca: receiver.ca,
    ...overrides,
  });
  senders.push(created);
  return created;
}

function post(s: WebhookSender, path = '/hooks') {
  return s.send({ url: receiver.url(path), headers: WEBHOOK_HEADERS, body: JSON_BODY });
}

/**
 * The result with its timing zeroed, to compare the rest exactly, and without the `date`
 * header the receiver adds to every response (test/webhooks/delivery-log.test.ts checks it).
 */
function untimed(result: SendResult): SendResult {
  if (result.response === null) return { ...result, responseMs: 0 };
  const { date: _date, ...headers } = result.response.headers;
  return { ...result, responseMs: 0, response: { ...result.response, headers } };
}

function respond(status: number, headers: Record<string, string> = {}): ReceiverHandler {
  return (_req, res) => {
    res.writeHead(status, headers).end();
  };
}

before(async () => {
  receiver = await startHttpsReceiver();
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  receiver.requests.length = 0;
  receiver.setHandler(respond(200));
});

after(async () => {
  await receiver.close();
});

describe('webhook sender: responses', () => {
  it('delivers the exact body and headers as a JSON POST and reports a 2xx as ok', async () => {
    receiver.setHandler(respond(204));
    const result = await sender().send({
      url: receiver.url('/hooks?tenant=1'),
      // A caller's content-type cannot override JSON.
      headers: { ...WEBHOOK_HEADERS, 'Content-Type': 'text/plain' },
      body: JSON_BODY,
    });

    assert.deepEqual(untimed(result), {
      ok: true,
      status: 204,
      responseMs: 0,
      error: null,
      gone: false,
      response: { headers: {}, body: '', body_truncated: false },
    });
    assert.ok(result.responseMs >= 0 && Number.isInteger(result.responseMs));
    assert.equal(receiver.requests.length, 1);
    const received = receiver.requests[0];
    assert.ok(received);
    assert.equal(received.method, 'POST');
    assert.equal(received.path, '/hooks?tenant=1');
    assert.equal(received.body, JSON_BODY);
    assert.equal(received.headers['content-type'], 'application/json');
    assert.equal(received.headers.host, `localhost:${receiver.port}`);
    for (const [name, value] of Object.entries(WEBHOOK_HEADERS)) assert.equal(received.headers[name], value);
  });

  it('treats a 301 as a failure and does not follow it', async () => {
    receiver.setHandler((req, res) => {
      if (req.path === '/moved') res.writeHead(301, { location: receiver.url('/target') }).end();
      else res.writeHead(200).end();
    });
    const result = await post(sender(), '/moved');

    assert.equal(result.ok, false);
    assert.equal(result.status, 301);
    assert.equal(result.error, 'HTTP 301: redirects are not followed');
    assert.deepEqual(
      receiver.requests.map((r) => r.path),
      ['/moved'],
    );
  });

  it('reports a 410 as gone', async () => {
    receiver.setHandler(respond(410));
    const result = await post(sender());
    assert.deepEqual(untimed(result), {
      ok: false,
      status: 410,
      responseMs: 0,
      error: 'HTTP 410',
      gone: true,
      response: { headers: {}, body: '', body_truncated: false },
    });
  });

  it('reports a 500 as a failure', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    });
    const result = await post(sender());
    assert.deepEqual(untimed(result), {
      ok: false,
      status: 500,
      responseMs: 0,
      error: 'HTTP 500',
      gone: false,
      response: { headers: { 'content-type': 'text/plain' }, body: 'boom', body_truncated: false },
    });
  });

  it('shares pooled connections across sends instead of connecting every time', async () => {
    const s = sender();
    const before = receiver.connectionCount();
    for (let i = 0; i < 6; i++) assert.equal((await post(s)).ok, true);
    // undici's pool may open a second socket while the first is being released; never one per send.
    assert.ok(receiver.connectionCount() - before <= 2, `${receiver.connectionCount() - before} connections`);
  });
});

describe('webhook sender: one deadline for the whole attempt', () => {
  it('gives up on a receiver that never answers', async () => {
    receiver.setHandler(() => {});
    const result = await post(sender({ timeoutMs: 300 }));

    assert.equal(result.ok, false);
    assert.equal(result.status, null);
    assert.equal(result.error, 'timeout after 300ms');
    assert.ok(result.responseMs >= 250 && result.responseMs < 2000, `took ${result.responseMs}ms`);
  });

  it('counts a response body that stalls after the headers', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const result = await post(sender({ timeoutMs: 300 }));

    assert.equal(result.ok, false);
    assert.equal(result.status, 200);
    assert.equal(result.error, 'timeout after 300ms');
  });

  it('counts DNS resolution', async () => {
    const neverResolves: Resolver = () => new Promise(() => {});
    const result = await post(sender({ timeoutMs: 300, resolver: neverResolves }));

    assert.equal(result.error, 'timeout after 300ms');
    assert.equal(result.status, null);
    assert.equal(receiver.requests.length, 0);
  });
});

describe('webhook sender: bounded response reading', () => {
  /** Streams `totalBytes` with backpressure and records whether all of it was ever written out. */
  function hugeBody(totalBytes: number, withContentLength: boolean) {
    let markClosed = () => {};
    const outcome = { finished: false, closed: new Promise<void>((resolve) => (markClosed = resolve)) };
    const handler: ReceiverHandler = (_req, res) => {
      res.writeHead(200, withContentLength ? { 'content-length': String(totalBytes) } : {});
      res.on('finish', () => (outcome.finished = true));
      res.on('close', () => markClosed());
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < totalBytes && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    };
    return { handler, outcome };
  }

  for (const withContentLength of [false, true]) {
    it(`drops a 64 MB body ${withContentLength ? 'with' : 'without'} content-length after a bounded read`, async () => {
      const { handler, outcome } = hugeBody(64 * 1024 * 1024, withContentLength);
      receiver.setHandler(handler);
      const result = await post(sender({ maxResponseBytes: 4096 }));

      assert.equal(result.ok, true);
      assert.equal(result.status, 200);
      assert.ok(result.responseMs < 2000, `took ${result.responseMs}ms`);
      // The delivery log's copy: the first 1 KB only.
      assert.equal(result.response?.body, 'x'.repeat(1024));
      assert.equal(result.response?.body_truncated, true);
      await outcome.closed;
      assert.equal(outcome.finished, false, 'the receiver managed to send the whole body');
    });
  }
});

describe('webhook sender: the response copy', () => {
  it('keeps 1 KB of a 2 KB body and drains the rest, so the connection is reused', async () => {
    const body = 'a'.repeat(1000) + 'b'.repeat(1048);
    receiver.setHandler((_req, res) => {
      res.writeHead(502, { 'content-length': String(body.length), 'x-not-kept': '1' }).end(body);
    });
    const s = sender();
    const before = receiver.connectionCount();
    for (let i = 0; i < 6; i++) {
      assert.deepEqual(untimed(await post(s)).response, {
        headers: { 'content-length': '2048' },
        body: 'a'.repeat(1000) + 'b'.repeat(24),
        body_truncated: true,
      });
    }
    // As above: at most a second socket while the first is released, never one per send.
    assert.ok(receiver.connectionCount() - before <= 2, `${receiver.connectionCount() - before} connections`);
  });

  it('keeps the start of a body over the read limit and closes that connection', async () => {
    const body = 'z'.repeat(5 * 1024);
    receiver.setHandler((_req, res) => {
      res.writeHead(500, { 'content-length': String(body.length) }).end(body);
    });
    const s = sender({ maxResponseBytes: 4096 });
    const before = receiver.connectionCount();
    for (let i = 0; i < 4; i++) {
      const result = await post(s);
      assert.equal(result.response?.body, 'z'.repeat(1024));
      assert.equal(result.response?.body_truncated, true);
    }
    // At least one connection per send (the pool may open a spare one meanwhile).
    const opened = receiver.connectionCount() - before;
    assert.ok(opened >= 4, `${opened} connections: a cut connection was reused`);
  });

  it('cuts a long header value to 256 characters', async () => {
    receiver.setHandler((_req, res) => {
      res.setHeader('server', 's'.repeat(300));
      res.setHeader('content-type', 'text/plain');
      res.writeHead(503).end();
    });
    const result = await post(sender());
    assert.deepEqual(untimed(result).response?.headers, { server: 's'.repeat(256), 'content-type': 'text/plain' });
  });
});

describe('webhook sender: address vetting at send time', () => {
  it('refuses a DNS rebinding answer at connect time, without connecting', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls++;
      return [{ address: calls === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const connectionsBefore = receiver.connectionCount();
    const result = await post(sender({ resolver: rebinding }));

    assert.equal(calls, 2, 'vetting before the send, then the socket lookup');
    assert.deepEqual(untimed(result), {
      ok: false,
      status: null,
      responseMs: 0,
      error: 'Webhook URL host localhost resolves to 10.0.0.1, a private address; only public addresses are allowed.',
      gone: false,
      response: null,
    });
    assert.equal(receiver.connectionCount(), connectionsBefore);
    assert.equal(receiver.requests.length, 0);
  });

  it('vets in the single-address lookup form too (happy eyeballs off)', async () => {
    const previous = getDefaultAutoSelectFamily();
    setDefaultAutoSelectFamily(false);
    try {
      assert.equal((await post(sender())).ok, true);
      let calls = 0;
      const rebinding: Resolver = async () => [{ address: ++calls === 1 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
      const result = await post(sender({ resolver: rebinding }));
      assert.equal(
        result.error,
        'Webhook URL host localhost resolves to 169.254.169.254, a link-local address; only public addresses are allowed.',
      );
      assert.equal(receiver.requests.length, 1);
    } finally {
      setDefaultAutoSelectFamily(previous);
    }
  });

  it('refuses loopback without allowLoopback, without connecting', async () => {
    const connectionsBefore = receiver.connectionCount();
    const result = await post(sender({ allowLoopback: false }));

    assert.equal(result.ok, false);
    assert.equal(result.status, null);
    assert.equal(
      result.error,
      'Webhook URL host localhost resolves to 127.0.0.1, a loopback address; only public addresses are allowed.',
    );
    assert.equal(receiver.connectionCount(), connectionsBefore);
  });

  it('refuses a non-https URL without connecting', async () => {
    const result = await sender().send({ url: `http://localhost:${receiver.port}/`, headers: {}, body: '{}' });
    assert.equal(result.error, 'Webhook URL must use https.');
    assert.equal(receiver.requests.length, 0);
  });

  it('connects to an IP-literal URL without any lookup', async () => {
    const noLookups: Resolver = async (hostname) => assert.fail(`unexpected lookup of ${hostname}`);
    const result = await sender({ resolver: noLookups }).send({
      url: `https://127.0.0.1:${receiver.port}/ip`,
      headers: {},
      body: '{}',
    });
    assert.equal(result.ok, true, result.error ?? '');
    assert.equal(receiver.requests[0]?.path, '/ip');
  });

  it('verifies the certificate against the URL hostname, not the connected address', async () => {
    const mismatched: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await sender({ resolver: mismatched }).send({
      url: `https://not-in-the-cert.test:${receiver.port}/`,
      headers: {},
      body: '{}',
    });
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /ERR_TLS_CERT_ALTNAME_INVALID/);
    assert.equal(receiver.requests.length, 0);

    const alias = await sender().send({
      url: `https://hooks.test.localhost:${receiver.port}/`,
      headers: {},
      body: '{}',
    });
    assert.equal(alias.ok, true, alias.error ?? '');
  });

  it('does not trust a self-signed receiver without its CA', async () => {
    const result = await sender({ ca: undefined }).send({ url: receiver.url('/'), headers: {}, body: '{}' });
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /self-signed certificate/);
    assert.equal(receiver.requests.length, 0);
  });
});
