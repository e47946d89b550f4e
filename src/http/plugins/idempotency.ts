/**
 * Idempotency keys: the rules and their design are in docs/idempotency.md.
 *
 * One mechanism for every POST and PATCH of the /v1 scope that carries `Idempotency-Key`
 * (GET and DELETE ignore the header), after the "recovery point" design of Stripe-style
 * implementations on PostgreSQL, with a single atomic phase:
 *
 * 1. preValidation, in its own short transaction: claim the (organizer, key) row
 *    in_progress under a lease, or lock the existing row and decide: another API key or
 *    another request (hash) -> 409; completed -> replay the stored response verbatim;
 *    in_progress and its holder alive -> 409 (in flight); in_progress and its holder gone
 *    (its process died) -> take it over with a new lease and fencing token, and execute.
 *    "Alive" is ./idempotency-lease.ts: a short lease renewed by a heartbeat while the
 *    request runs (PostgreSQL), or a lease token held by this process (PGlite).
 *    Running before validation means a 400 for a bad body is stored and replayed too.
 * 2. preHandler, the last one: open the request's transaction (openTransaction, the one
 *    way a transaction opens: src/db/transaction.ts) and make it request.db, so the
 *    domain code (withTransaction(request.db, ...)) joins it.
 * 3. onSend: a success (< 400) writes its response into the key row inside that same
 *    transaction, then commits: the change and its stored response commit together or not
 *    at all. If the commit fails, the failure goes to the one error handler (a 503 for a
 *    database fault, else a 500) and nothing is stored (the key is released so a retry
 *    executes). An error (>= 400) rolls the transaction back and stores the response
 *    (every status, 5xx included) in a separate transaction.
 *    onResponse rolls back any transaction still open, so nothing can leave one behind
 *    (on PGlite an open transaction holds the only connection).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  completeIdempotencyKey,
  findIdempotencyKeyForUpdate,
  insertIdempotencyKeyIfAbsent,
  releaseIdempotencyKey,
  renewIdempotencyLease,
  resetIdempotencyKey,
  type IdempotencyKeyRow,
  type NewIdempotencyKey,
} from '../../db/repositories/idempotency.ts';
import { openTransaction, withTransaction, type OpenedTransaction } from '../../db/transaction.ts';
import { tenantOf } from '../context.ts';
import type { CodeOf } from '../../errors/codes.ts';
import { conflict, invalid } from '../../errors/domain-error.ts';
import { HeldLease, leaseIsLive } from './idempotency-lease.ts';
import { hooksOf, methodsOf } from '../route-hooks.ts';
import { idempotencyConflicts, idempotencyReplays } from '../../metrics/registry.ts';

const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Response headers stored and replayed besides the status and body. */
const STORED_HEADERS = ['content-type', 'location'] as const;

export const IDEMPOTENCY_DETAILS = {
  tooLong: (length: number) =>
    `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters; this one has ${length}.`,
  empty: 'Idempotency-Key must not be empty; omit the header or send 1 to 255 characters.',
  otherApiKey:
    'This Idempotency-Key was already used by another API key of this organizer; a replay requires the same API key. Use a new key.',
  otherCredential:
    'This Idempotency-Key was already used by an API key or another person of this organizer; a replay must come from the same person. Use a new key.',
  otherRequest:
    'This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new request.',
  inFlight: 'A request with this Idempotency-Key is still in progress. Retry after it completes to get its response.',
  leaseLost:
    "This request's Idempotency-Key lease expired and a retry took the key over; its work was rolled back. Retry with the same key to get the retry's response.",
} as const;

type Owner = {
  kind: 'owner';
  organizerId: string;
  key: string;
  leaseToken: string;
  lease: HeldLease;
  /** The request transaction while it is open (undefined once committed or rolled back). */
  trx: OpenedTransaction | undefined;
  finished: boolean;
};
type State = { kind: 'replay' } | Owner;

const states = new WeakMap<FastifyRequest, State>();

/** The header as documented on every POST and PATCH (the hooks enforce it before validation). */
const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_KEY_HEADER]: Type.Optional(
    Type.String({
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      description:
        'Makes retries safe: the first request with a key executes and its response (any status) is stored for 24 hours; ' +
        'a retry with the same key and payload replays it with `idempotent-replayed: true`. A different payload or API key, ' +
        'or a retry while the first is in flight, answers 409. Scoped to the organizer.',
    }),
  ),
});

/**
 * Adds the idempotency hooks to every POST and PATCH route of the scope (call once, in
 * that scope, before its routes). They are route hooks, not scope hooks, so GETs run none
 * of them. The key is claimed first among the route's own preValidation hooks; the
 * transaction opens after every other preHandler; the response is stored after every
 * other onSend hook, so what is stored is what is sent, and a write recorded in onSend
 * (the audit log's, ./audit.ts) commits with the change.
 */
export function registerIdempotency(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!methodsOf(route).some((m) => m === 'POST' || m === 'PATCH')) return;
    if (route.schema?.headers === undefined) route.schema = { ...route.schema, headers: IdempotencyHeaders };
    route.preValidation = [claimKey, ...hooksOf(route.preValidation)] as typeof route.preValidation;
    // The transaction opens last, after the route's own preHandlers: those may do network
    // I/O (webhook URL vetting resolves DNS), which must never hold a database connection
    // (docs/operations.md, "No network I/O inside a transaction").
    route.preHandler = [...hooksOf(route.preHandler), openRequestTransaction] as typeof route.preHandler;
    route.onSend = [...hooksOf(route.onSend), storeResponse] as typeof route.onSend;
    route.onResponse = [closeLeftovers, ...hooksOf(route.onResponse)] as typeof route.onResponse;
  });
}

/** JSON with object keys sorted at every level, so key order never changes the hash. */
function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** The path as routed (trailing slashes ignored, like the router) plus any query string. */
function requestPath(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(/\/+$/, '') || '/';
  return q === -1 ? path : path + url.slice(q);
}

export function requestHash(credentialId: string, method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([credentialId, method, path, canonicalJson(body)]))
    .digest('hex');
}

type Decision =
  | { kind: 'execute' }
  | { kind: 'replay'; row: IdempotencyKeyRow }
  | { kind: 'conflict'; code: CodeOf<'conflict'>; detail: string };

// eslint-disable-next-line max-lines-per-function -- the decision table of docs/idempotency.md, one branch per state of the key
async function claimKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  if (request.method !== 'POST' && request.method !== 'PATCH') return;
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return;
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (key.length === 0) throw invalid('idempotency_key_invalid', IDEMPOTENCY_DETAILS.empty);
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH)
    throw invalid('idempotency_key_invalid', IDEMPOTENCY_DETAILS.tooLong(key.length));

  const { db, engine, clock, idempotency: settings } = request.server.deps;
  const auth = tenantOf(request);
  const now = clock.now();
  const path = requestPath(request.url);
  const claim: NewIdempotencyKey = {
    organizerId: auth.organizerId,
    key,
    requestHash: requestHash(auth.apiKeyId ?? `user:${auth.userId}`, request.method, path, request.body),
    apiKeyId: auth.apiKeyId,
    userId: auth.userId,
    method: request.method,
    path,
    leaseToken: randomUUID(),
    lockedUntil: new Date(now.getTime() + settings.leaseMs),
    now,
  };

  // The lease counts as live from inside the claim's transaction: on PGlite a competing
  // claim runs only after this one commits, and must already see it as held.
  let lease: HeldLease | undefined;
  const hold = (): Decision => {
    lease = new HeldLease({
      engine,
      db,
      clock,
      leaseMs: settings.leaseMs,
      organizerId: auth.organizerId,
      key,
      leaseToken: claim.leaseToken,
      log: request.log,
    });
    return { kind: 'execute' };
  };
  let decision: Decision;
  try {
    decision = await withTransaction(db, async (trx): Promise<Decision> => {
      // Two rounds: a row that conflicted on insert can vanish (purged) before it is locked.
      for (let round = 0; round < 2; round++) {
        if (await insertIdempotencyKeyIfAbsent(trx, claim)) return hold();
        const row = await findIdempotencyKeyForUpdate(trx, claim.organizerId, key);
        if (!row) continue;
        if (row.created_at.getTime() <= now.getTime() - settings.retentionMs) {
          // Past its 24 hours, a key is free again even if the purge has not run yet.
          await resetIdempotencyKey(trx, claim);
          return hold();
        }
        if (row.api_key_id !== claim.apiKeyId || row.user_id !== claim.userId)
          return {
            kind: 'conflict',
            code: 'idempotency_key_reused',
            detail: claim.apiKeyId === null ? IDEMPOTENCY_DETAILS.otherCredential : IDEMPOTENCY_DETAILS.otherApiKey,
          };
        if (row.request_hash !== claim.requestHash)
          return { kind: 'conflict', code: 'idempotency_key_reused', detail: IDEMPOTENCY_DETAILS.otherRequest };
        if (row.status === 'completed') return { kind: 'replay', row };
        if (leaseIsLive(engine, row, now))
          return { kind: 'conflict', code: 'idempotency_key_in_flight', detail: IDEMPOTENCY_DETAILS.inFlight };
        // The request holding the key is gone (its process died): take over.
        request.log.warn(
          { idempotencyKey: key, expiredAt: row.locked_until },
          'idempotency key holder is gone (lease expired or process restarted); taking the key over',
        );
        await renewIdempotencyLease(trx, claim.organizerId, key, claim);
        return hold();
      }
      throw new Error('idempotency key row kept disappearing');
    });
  } catch (err) {
    lease?.end();
    throw err;
  }

  if (decision.kind === 'conflict') {
    idempotencyConflicts.inc({ code: decision.code });
    throw conflict(decision.code, decision.detail);
  }
  if (decision.kind === 'replay') {
    idempotencyReplays.inc();
    states.set(request, { kind: 'replay' });
    const { row } = decision;
    return reply
      .code(row.response_status!)
      .headers({ ...row.response_headers, 'idempotent-replayed': 'true' })
      .send(row.response_body!);
  }
  lease!.startHeartbeat();
  states.set(request, {
    kind: 'owner',
    organizerId: auth.organizerId,
    key,
    leaseToken: claim.leaseToken,
    lease: lease!,
    trx: undefined,
    finished: false,
  });
}

async function openRequestTransaction(request: FastifyRequest): Promise<void> {
  const state = states.get(request);
  if (state?.kind !== 'owner') return;
  const { db, idempotency: settings } = request.server.deps;
  state.trx = await openTransaction(db);
  request.db = state.trx.db;
  await settings.beforeExecute?.(request);
}

function payloadText(payload: unknown): string | undefined {
  if (payload === undefined || payload === null) return '';
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined; // a stream: not storable
}

function storedHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}

/** Ends the request transaction, if still open, with a rollback; request.db is the pool again. */
async function rollbackQuietly(request: FastifyRequest, state: Owner): Promise<void> {
  request.db = request.server.deps.db;
  const { trx } = state;
  state.trx = undefined;
  await trx?.rollback();
}

async function storeResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const state = states.get(request);
  if (state?.kind !== 'owner' || state.finished) return payload;
  state.finished = true;
  // The response is decided: no more renewals. The key stays held (in this process) until
  // the response is stored, so no retry can slip in between a rollback and the store.
  state.lease.stopHeartbeat();
  try {
    return await finish(request, reply, payload, state);
  } finally {
    state.lease.end();
  }
}

/**
 * Ends an owned request: a success commits with its stored response; anything else rolls
 * back and stores the response on its own. A failure here is thrown to the one error
 * handler (src/http/errors.ts), whose answer then leaves unstored: a lease lost to a
 * take-over (409), or a failed commit (503 for a database fault, else 500), after which
 * the key is released so a retry executes.
 */
async function finish(request: FastifyRequest, reply: FastifyReply, payload: unknown, state: Owner): Promise<unknown> {
  const { db, clock } = request.server.deps;
  const { organizerId, key, leaseToken, trx } = state;
  const body = payloadText(payload);
  const response = { status: reply.statusCode, headers: storedHeaders(reply), body: body ?? '' };

  if (reply.statusCode < 400 && trx) {
    // Success: the stored response joins the change in its transaction; both or neither.
    let stillOurs: boolean;
    try {
      if (body === undefined) throw new Error('idempotency: a streamed response cannot be stored');
      stillOurs = await completeIdempotencyKey(trx.db, organizerId, key, leaseToken, response, clock.now());
      if (stillOurs) {
        state.trx = undefined;
        await trx.commit();
        request.db = db;
      }
    } catch (err) {
      await rollbackQuietly(request, state);
      request.log.error({ err, idempotencyKey: key }, 'idempotent request failed to commit; nothing stored');
      await releaseIdempotencyKey(db, organizerId, key, leaseToken).catch((releaseErr: unknown) =>
        request.log.error({ err: releaseErr }, 'idempotency: could not release the key'),
      );
      reply.removeHeader('location');
      throw err;
    }
    if (stillOurs) return payload;
    await rollbackQuietly(request, state);
    request.log.warn({ idempotencyKey: key }, 'idempotency lease lost to a take-over; work rolled back');
    idempotencyConflicts.inc({ code: 'idempotency_key_lease_lost' });
    reply.removeHeader('location');
    throw conflict('idempotency_key_lease_lost', IDEMPOTENCY_DETAILS.leaseLost);
  }

  // An error (or a success answered before the handler): the work, if any, rolls back;
  // the response is stored on its own (every status is stored, 5xx included: docs/idempotency.md).
  await rollbackQuietly(request, state);
  try {
    await withTransaction(db, (t) => completeIdempotencyKey(t, organizerId, key, leaseToken, response, clock.now()));
  } catch (err) {
    // The key stays in_progress until its holder counts as gone (docs/idempotency.md,
    // Lease); then a retry executes.
    request.log.error({ err, idempotencyKey: key }, 'idempotency: could not store the error response');
  }
  return payload;
}

/** Safety net: whatever happened, no request leaves its transaction open or its key leased. */
async function closeLeftovers(request: FastifyRequest): Promise<void> {
  const state = states.get(request);
  states.delete(request);
  if (state?.kind !== 'owner') return;
  state.lease.end();
  if (state.trx) {
    request.log.error(
      { idempotencyKey: state.key },
      'idempotency: transaction still open after the response; rolling back',
    );
    await rollbackQuietly(request, state);
    await releaseIdempotencyKey(request.server.deps.db, state.organizerId, state.key, state.leaseToken).catch(
      () => undefined,
    );
  }
}
