/**
 * One error path (docs/operations.md, "One error path"): routing errors, Fastify's own
 * errors and requests Node's HTTP parser refuses all answer application/problem+json
 * with x-request-id and the CORS headers, never Fastify's or Node's own bodies.
 */
import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ADMIN_TOKEN, problemOf, useTestApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { exchangeUntilClosed, listenOnLoopback, type RawResponse } from '../helpers/raw-http.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROBLEM = 'application/problem+json; charset=utf-8';
const EXPOSED = 'x-request-id, retry-after, idempotent-replayed, ratelimit, ratelimit-policy';

function problem(status: number, title: string, detail: string, code: ErrorCode) {
  return { type: 'about:blank', title, status, detail, code };
}

function assertConventions(headers: Record<string, unknown>, label: string) {
  assert.equal(headers['content-type'], PROBLEM, label);
  assert.match(String(headers['x-request-id']), UUID_RE, label);
  assert.equal(headers['access-control-allow-origin'], '*', label);
  assert.equal(headers['access-control-expose-headers'], EXPOSED, label);
}

describe('routing and framework errors (inject)', () => {
  const t = useTestApp();
  let key: string;
  before(async () => {
    key = (await t.createOrganizer()).key;
  });

  const unroutable: Array<[string, string]> = [
    ['/v1/events/%ZZ', 'Unknown API endpoint.'],
    ['/v1/%ZZ', 'Unknown API endpoint.'],
    ['/v1/events/abc%ZZ?limit=%ZZ', 'Unknown API endpoint.'],
    ['/admin/v1/organizers/%E0%A4%A', 'Unknown API endpoint.'],
    [`/v1/events/${'a'.repeat(101)}`, 'Unknown API endpoint.'],
    ['/nowhere/%ZZ', 'Not found.'],
  ];
  for (const [url, detail] of unroutable) {
    test(`GET ${url.slice(0, 40)} answers 404 problem+json`, async () => {
      for (const headers of [{}, { authorization: `Bearer ${key}` }]) {
        const res = await t.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 404);
        assertConventions(res.headers, url);
        assert.deepEqual(res.json(), problemOf(404, detail, 'unknown_endpoint'));
      }
    });
  }

  test('a routing error keeps a well-formed incoming x-request-id', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/events/%ZZ', headers: { 'x-request-id': 'client-42' } });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['x-request-id'], 'client-42');
  });

  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  test('a body shorter than its Content-Length answers 400', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/organizers',
      headers: { ...admin, 'content-type': 'application/json', 'content-length': '5' },
      payload: '{"name":"x"}',
    });
    assert.equal(res.statusCode, 400);
    assertConventions(res.headers, 'content-length');
    assert.deepEqual(
      res.json(),
      problemOf(400, 'Request body length does not match the Content-Length header.', 'invalid_request'),
    );
  });

  test('a body over 1 MiB answers 413 naming the limit', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/organizers',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
    });
    assert.equal(res.statusCode, 413);
    assertConventions(res.headers, '413');
    assert.deepEqual(
      res.json(),
      problemOf(413, 'Request body is too large: at most 1048576 bytes.', 'payload_too_large'),
    );
  });

  test('a body that is not JSON answers 415', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/organizers',
      headers: { ...admin, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    assert.equal(res.statusCode, 415);
    assertConventions(res.headers, '415');
    assert.deepEqual(
      res.json(),
      problemOf(415, 'Unsupported content type: send the body as application/json.', 'unsupported_media_type'),
    );
  });
});

describe('every FST_* error raised while serving answers its problem', () => {
  let app: FastifyInstance;
  let database: TestDatabase;
  const require = createRequire(import.meta.url);
  const fastifyErrors = require('fastify/lib/errors.js') as Record<
    string,
    new (...args: string[]) => Error & { statusCode?: number }
  >;
  /** Codes raised at start-up or by a wrong use of Fastify's API, never by a request. */
  const notServing = new Set(['FST_ERR_CTP_INSTANCE_ALREADY_STARTED', 'FST_ERR_INVALID_URL']);
  /** Raised while routing: answered by the frameworkErrors handler (tested above), not by handleError. */
  const routing = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH', 'FST_ERR_NOT_FOUND']);
  const expected: Record<string, [number, string, ErrorCode]> = {
    FST_ERR_CTP_INVALID_MEDIA_TYPE: [
      415,
      'Unsupported content type: send the body as application/json.',
      'unsupported_media_type',
    ],
    FST_ERR_CTP_BODY_TOO_LARGE: [413, 'Request body is too large: at most 1048576 bytes.', 'payload_too_large'],
    FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'Request body is empty; send a JSON object.', 'invalid_json'],
    FST_ERR_CTP_INVALID_JSON_BODY: [400, 'Request body is not valid JSON.', 'invalid_json'],
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
      400,
      'Request body length does not match the Content-Length header.',
      'invalid_request',
    ],
    FST_ERR_ROUTE_MISSING_CONTENT_TYPE: [
      400,
      'This request needs a Content-Type header: send the body as application/json.',
      'invalid_request',
    ],
    FST_ERR_ROUTE_MISSING_CONTENT: [400, 'This request needs a body.', 'invalid_request'],
    FST_ERR_VALIDATION: [400, 'The request is not valid.', 'invalid_request'],
    FST_ERR_HANDLER_TIMEOUT: [503, 'The request took too long to handle; retry shortly.', 'handler_timeout'],
  };

  before(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ ADMIN_TOKEN });
    app = await buildApp({ config, database, adminToken: ADMIN_TOKEN });
    // A route that throws the Fastify error named in its path, as Fastify would.
    app.get<{ Params: { code: string } }>('/throw/:code', async (request) => {
      throw new fastifyErrors[request.params.code]!('x', 'y');
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  test('the table covers every 4xx code of this Fastify version', () => {
    const served = Object.entries(fastifyErrors)
      .filter(
        ([code, Ctor]) =>
          code.startsWith('FST_') && typeof Ctor === 'function' && !notServing.has(code) && !routing.has(code),
      )
      .filter(([, Ctor]) => (new Ctor('x', 'y').statusCode ?? 500) < 500)
      .map(([code]) => code);
    assert.deepEqual(
      served.filter((code) => !(code in expected)),
      [],
    );
  });

  for (const [code, [status, detail, problemCode]] of Object.entries(expected)) {
    test(`${code} answers ${status}`, async () => {
      const res = await app.inject({ method: 'GET', url: `/throw/${code}` });
      assert.equal(res.statusCode, status);
      assertConventions(res.headers, code);
      assert.deepEqual(res.json(), problemOf(status, detail, problemCode));
    });
  }

  test('any other FST_* error is a 500 that quotes the request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/throw/FST_ERR_REP_ALREADY_SENT' });
    assert.equal(res.statusCode, 500);
    assertConventions(res.headers, '500');
    assert.deepEqual(
      res.json(),
      problemOf(
        500,
        `Internal server error. Quote request id ${String(res.headers['x-request-id'])} to support.`,
        'internal_error',
      ),
    );
  });
});

describe('requests refused by the HTTP parser (real socket)', () => {
  const t = useTestApp();
  let port: number;
  before(async () => {
    port = await listenOnLoopback(t.app);
  });

  function assertRawProblem(res: RawResponse, statusLine: string, body: unknown) {
    assert.equal(res.statusLine, statusLine);
    assertConventions(res.headers, statusLine);
    assert.equal(res.headers.connection, 'close');
    assert.deepEqual(JSON.parse(res.body), body);
  }

  test('headers over 16 KB answer 431', async () => {
    const res = await exchangeUntilClosed(
      port,
      `GET /v1/events HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    assertRawProblem(
      res,
      'HTTP/1.1 431 Request Header Fields Too Large',
      problem(
        431,
        'Request Header Fields Too Large',
        'Request headers are too large: at most 16384 bytes in all.',
        'headers_too_large',
      ),
    );
  });

  const malformed: Array<[string, string, string]> = [
    [
      'a Content-Length that is not a number',
      'content-length: abc\r\n',
      'The Content-Length header is not a valid length.',
    ],
    [
      'two different Content-Lengths',
      'content-length: 1\r\ncontent-length: 2\r\n',
      'The request has more than one Content-Length, or Content-Length together with Transfer-Encoding.',
    ],
    [
      'Content-Length with Transfer-Encoding',
      'content-length: 1\r\ntransfer-encoding: chunked\r\n',
      'The Transfer-Encoding header is not valid; send Content-Length or Transfer-Encoding: chunked alone.',
    ],
  ];
  for (const [label, headers, detail] of malformed) {
    test(`${label} answers 400`, async () => {
      const res = await exchangeUntilClosed(port, `POST /admin/v1/organizers HTTP/1.1\r\nhost: x\r\n${headers}\r\n{}`);
      assertRawProblem(res, 'HTTP/1.1 400 Bad Request', problemOf(400, detail, 'invalid_request'));
    });
  }

  test('a request line that is not HTTP answers 400', async () => {
    const res = await exchangeUntilClosed(port, 'HELLO THERE\r\n\r\n');
    assertRawProblem(
      res,
      'HTTP/1.1 400 Bad Request',
      problemOf(400, 'The request method is not valid.', 'invalid_request'),
    );
  });

  test('an HTTP/1.1 request without Host answers 400', async () => {
    const res = await exchangeUntilClosed(port, 'GET /healthz HTTP/1.1\r\nconnection: close\r\n\r\n');
    assert.equal(res.statusLine, 'HTTP/1.1 400 Bad Request');
    assertConventions(res.headers, 'no host');
    assert.deepEqual(
      JSON.parse(res.body),
      problemOf(400, 'HTTP/1.1 requests must carry a Host header.', 'invalid_request'),
    );
  });

  test('an Expect other than 100-continue answers 417', async () => {
    const res = await exchangeUntilClosed(port, 'GET /healthz HTTP/1.1\r\nhost: x\r\nexpect: tea\r\n\r\n');
    assertRawProblem(
      res,
      'HTTP/1.1 417 Expectation Failed',
      problem(
        417,
        'Expectation Failed',
        'The only supported Expect header is "Expect: 100-continue".',
        'expectation_unsupported',
      ),
    );
  });
});
