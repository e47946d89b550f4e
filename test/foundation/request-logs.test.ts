/**
 * Each request's log lines (docs/operations.md, "Logs"): every line a request writes
 * carries its request id, and the request's pino child is made only when it writes one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Logger } from 'pino';
import { createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { captureLog } from '../helpers/log-capture.ts';

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
    state.children = countChildren(log.logger);
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
});
