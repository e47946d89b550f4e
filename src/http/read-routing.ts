/**
 * Which database a request reads from (docs/deploy.md, "A read replica"). A route that
 * declares `config: { reads: 'replica' }` (a side-effect-free GET) runs its handler with
 * request.db set to the replica when the tracker (src/db/replica.ts) says the replica
 * keeps up and the caller's own writes are replayed there; every other request, the
 * authentication before the handler included, stays on the primary.
 *
 * A replica read that fails with anything but the route's own answer (a 404, a 400) is
 * run again once on the primary, so a replica dying between two polls costs a retry,
 * never an error. Once the response is on its way (a CSV export streaming its batches)
 * nothing can be retried: that export fails as it would on the primary.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { openReadReplica, type ReadReplica } from '../db/replica.ts';
import { DomainError } from '../errors/domain-error.ts';
import { watchReplica } from '../metrics/replica.ts';
import { sharedRecentWrites, type RecentWrites } from './recent-writes.ts';
import { methodsOf } from './route-hooks.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whose writes a read must see: the API key, or the signed-in person of the dashboard. */
function credentialOf(request: FastifyRequest): string | undefined {
  const auth = request.auth;
  if (auth?.apiKeyId) return `key:${auth.apiKeyId}`;
  if (auth?.userId) return `user:${auth.userId}`;
  return undefined;
}

/** Handlers already wrapped: a handler given to several routes is wrapped once. */
const routed = new WeakSet<RouteHandlerMethod>();

/** Whether a read of this credential may go to the replica: it keeps up, and has this credential's writes. */
async function replicaServes(
  replica: ReadReplica,
  recentWrites: RecentWrites | undefined,
  credential: string | undefined,
): Promise<boolean> {
  if (!replica.tracker.servesRead(credential)) return false;
  return credential === undefined || recentWrites === undefined || !(await recentWrites.wroteRecently(credential));
}

function onReplica(
  handler: RouteHandlerMethod,
  replica: ReadReplica,
  recentWrites: RecentWrites | undefined,
): RouteHandlerMethod {
  if (routed.has(handler)) return handler;
  const replicaRouted = async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    if (!(await replicaServes(replica, recentWrites, credentialOf(request)))) return handler.call(this, request, reply);
    const primary = request.db;
    request.db = replica.db;
    try {
      return await handler.call(this, request, reply);
    } catch (err) {
      if (err instanceof DomainError || reply.sent || reply.raw.headersSent) throw err;
      replica.tracker.noteFailure(err);
      request.log.info({ err }, 'a replica read failed: answered from the primary');
      request.db = primary;
      return await handler.call(this, request, reply);
    } finally {
      // Hooks after the handler see the primary (a streaming export's batches keep the handle they were given).
      request.db = primary;
    }
  };
  routed.add(replicaRouted);
  return replicaRouted;
}

/**
 * With DATABASE_REPLICA_URL (or a replica the caller opened, tests), routes reads that
 * declare it to the replica and notes every write's credential. Call before the routes
 * are added. Without a replica it adds nothing: no hook, no cost.
 */
export async function routeReads(
  app: FastifyInstance,
  opts: { config: Readonly<Config>; primary: Db; replica: ReadReplica | undefined },
): Promise<void> {
  const replica = opts.replica ?? (await openReadReplica(opts.config, opts.primary, { logger: app.log }));
  if (replica === undefined) return;
  if (opts.replica === undefined) app.addHook('onClose', async () => replica.close());
  app.addHook('onReady', async () => replica.tracker.start());
  const unwatch = watchReplica(replica.tracker);
  app.addHook('onClose', async () => unwatch());
  // Other API processes' writes (REDIS_URL; ./recent-writes.ts): without Redis, only this process's.
  const recentWrites = opts.config.redisUrl
    ? sharedRecentWrites(opts.config.redisUrl, opts.config.databaseReplicaMaxLagMs, app.log)
    : undefined;
  if (recentWrites) app.addHook('onClose', async () => recentWrites.close());
  app.addHook('onRoute', (route) => {
    if (route.config?.reads !== 'replica') return;
    if (methodsOf(route).some((method) => !SAFE_METHODS.has(method)))
      throw new Error(`${route.url}: only GET routes may read from the replica`);
    route.handler = onReplica(route.handler, replica, recentWrites);
  });
  // A write's credential reads from the primary from before its handler runs until the
  // replica replayed what the primary had flushed after its response (its commit is in
  // that): a read sent as soon as the response arrives never finds the write missing.
  const writing = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', (request, _reply, done) => {
    const credential = SAFE_METHODS.has(request.method) ? undefined : credentialOf(request);
    if (credential !== undefined) {
      writing.add(request);
      replica.tracker.beginWrite(credential);
    }
    done();
  });
  // Marked before the response leaves: a read sent on its arrival, to any process, sees it.
  if (recentWrites)
    app.addHook('onSend', async (request, _reply, payload) => {
      if (writing.has(request)) await recentWrites.mark(credentialOf(request)!);
      return payload;
    });
  app.addHook('onResponse', (request, _reply, done) => {
    if (writing.has(request)) replica.tracker.endWrite(credentialOf(request)!);
    done();
  });
}
