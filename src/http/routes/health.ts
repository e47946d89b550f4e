/** Liveness and readiness probes: /healthz answers while the process runs, /readyz only while the database does. */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { ProblemSchema } from '../schemas/common.ts';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true, response: { 200: Status, 503: ProblemSchema } } }, async (request, reply) => {
    try {
      await sql`SELECT 1`.execute(app.deps.db);
      return { status: 'ready' };
    } catch (err) {
      request.log.warn({ err }, 'readiness check: database unreachable');
      return reply.code(503).type('application/problem+json').send({
        type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'The database is not reachable.',
      });
    }
  });
};
