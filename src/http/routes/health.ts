/**
 * Liveness and readiness probes: /healthz answers while the process runs, /readyz only
 * while the database does and the process is not draining before shutdown
 * (./shutdown-state.ts; docs/deploy.md, "Rolling restarts behind a load balancer").
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Clock } from '../../lib/clock.ts';
import { problem } from '../errors.ts';
import { Problem } from '../schemas/common.ts';
import { SHUTTING_DOWN_DETAIL } from '../shutdown-state.ts';

const Status = Type.Object({ status: Type.String() });

/**
 * How long one readiness answer is reused: however many probes arrive (several load
 * balancers, a probe storm while the database is down), they cost at most one query per
 * this long, and a probe never queues behind another's query for long.
 */
export const READINESS_CACHE_MS = 1000;

/**
 * A database check shared by concurrent callers: the first call runs it, every call
 * within READINESS_CACHE_MS of that start gets the same outcome (the error, or undefined
 * for reachable), the first call after runs it again.
 */
function createReadinessCheck(check: () => Promise<unknown>, clock: Clock): () => Promise<unknown> {
  let last: { startedAt: number; outcome: Promise<unknown> } | undefined;
  return () => {
    const now = clock.now().getTime();
    if (last === undefined || now - last.startedAt >= READINESS_CACHE_MS || now < last.startedAt) {
      last = {
        startedAt: now,
        outcome: check().then(
          () => undefined,
          (err: unknown) => err ?? new Error('readiness check failed'),
        ),
      };
    }
    return last.outcome;
  };
}

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // app.deps.db is read at each check, not captured here, so it is always the app's database.
  const databaseProblem = createReadinessCheck(() => sql`SELECT 1`.execute(app.deps.db), app.deps.clock);

  app.get('/healthz', { schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true, response: { 200: Status, 503: Problem } } }, async (request, reply) => {
    // Before the database check: a draining process is out of rotation whatever its database says.
    if (app.deps.shutdown.draining)
      return reply.code(503).type('application/problem+json').send(problem('shutting_down', SHUTTING_DOWN_DETAIL));
    const err = await databaseProblem();
    if (err === undefined) return { status: 'ready' };
    request.log.warn({ err }, 'readiness check: database unreachable');
    return reply
      .code(503)
      .type('application/problem+json')
      .send(problem('database_unavailable', 'The database is not reachable.'));
  });
};
