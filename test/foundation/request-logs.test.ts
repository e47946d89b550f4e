/**
 * Each request's log lines (docs/operations.md, "Logs"): every line a request writes
 * carries its request id, and the request's pino child is made only when it writes one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Logger } from 'pino';
import { createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { frameworkLogging } from '../../src/http/request-logger.ts';

/** Counts the children made of a logger from now on. */
function countChildren(logger: Logger): { readonly made: number } {
  const counter = { made: 0 };
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<Logger['child']>) => {
    counter.made++;
    return child(...args);
  }) as Logger['child'];
  return counter;
}

function useLoggedApp(level: 'info' | 'warn') {
  const log = captureLog(level);
  const state = {} as { t: TestApp; org: TestOrganizer; children: { readonly made: number } };
  before(async () => {
    state.t = await createTestApp({ env: { RATE_LIMIT_READ_PER_MIN: '1' }, appOptions: { logger: log.logger } });
    state.org = await state.t.createOrganizer();
    // Requests' children hang off app.log: Fastify's wrapper of the logger at info, the
    // same logger with Fastify's serializers above info (src/http/request-logger.ts).
    state.children = countChildren(state.t.app.log as Logger);
  });
  after(() => state.t.close());
  return { log, state };
}

const linesOf = (lines: Array<Record<string, unknown>>, requestId: unknown) =>
  lines.filter((line) => line.reqId === requestId).map((line) => line.msg);

describe('request logs at info', () => {
  const { log, state } = useLoggedApp('info');

  test('every line of a request carries its request id; one child per request', async () => {
    const allowed = await state.t.api(state.org.key, 'GET', '/v1/events');
    const limited = await state.t.api(state.org.key, 'GET', '/v1/events');
    assert.deepEqual([allowed.statusCode, limited.statusCode], [200, 429]);
    assert.deepEqual(linesOf(log.lines, allowed.headers['x-request-id']), ['incoming request', 'request completed']);
    assert.deepEqual(linesOf(log.lines, limited.headers['x-request-id']), [
      'incoming request',
      'rate limit exceeded',
      'request completed',
    ]);
    const exceeded = log.withMessage('rate limit exceeded');
    assert.deepEqual(
      exceeded.map((line) => [line.levelName, line.bucket, line.limit]),
      [['info', 'read', 1]],
    );
    assert.equal(state.children.made, 2);
  });
});

test('Fastify gets the logger at info and below; above, none, and app.log is the logger with its fields', () => {
  for (const level of ['trace', 'debug', 'info'] as const) {
    const { logger } = captureLog(level);
    const logging = frameworkLogging(logger);
    assert.deepEqual(
      [logging.options.loggerInstance === logger, logging.options.logger, logging.appLog],
      [true, undefined, undefined],
    );
  }
  for (const level of ['warn', 'error', 'fatal', 'silent'] as const) {
    const logging = frameworkLogging(captureLog(level).logger);
    assert.deepEqual(
      [logging.options.loggerInstance, logging.options.logger, logging.appLog?.level],
      [undefined, false, level],
    );
  }
});

describe('request logs at warn', () => {
  const { log, state } = useLoggedApp('warn');

  test('a request that writes no line makes no child logger', async () => {
    const linesBefore = log.lines.length;
    const allowed = await state.t.api(state.org.key, 'GET', '/v1/events');
    const limited = await state.t.api(state.org.key, 'GET', '/v1/events');
    assert.deepEqual([allowed.statusCode, limited.statusCode], [200, 429]);
    assert.equal(log.lines.length, linesBefore);
    assert.equal(state.children.made, 0);
  });

  test("a request's warning carries its request id, and only its own lines are written", async () => {
    const { deps } = state.t.app;
    const database = deps.db;
    // The readiness check's query fails: /readyz logs a warning through the request's logger.
    deps.db = new Proxy(database, {
      get: () => {
        throw new Error('the database is gone');
      },
    });
    try {
      const ready = await state.t.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      const lines = log.lines.filter((line) => line.reqId === ready.headers['x-request-id']);
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg, (line.err as { message?: string } | undefined)?.message]),
        [[40, 'readiness check: database unreachable', 'the database is gone']],
      );
    } finally {
      deps.db = database;
    }
    assert.equal(state.children.made, 1);
  });

  test("app.log writes to the process logger, with Fastify's fields for a request and a reply", async () => {
    const ok = await state.t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'probe-1' } });
    assert.equal(ok.statusCode, 200);
    state.t.app.log.warn(
      {
        req: { method: 'GET', url: '/x', headers: {}, host: 'h', ip: '127.0.0.1', socket: { remotePort: 5 }, raw: {} },
        res: { statusCode: 201, raw: {} },
      },
      'framework line',
    );
    const [line] = log.withMessage('framework line');
    assert.deepEqual(
      [line?.levelName, line?.req, line?.res],
      ['warn', { method: 'GET', url: '/x', host: 'h', remoteAddress: '127.0.0.1', remotePort: 5 }, { statusCode: 201 }],
    );
    assert.deepEqual(
      log.lines.filter((l) => l.reqId === 'probe-1'),
      [],
    );
  });
});
