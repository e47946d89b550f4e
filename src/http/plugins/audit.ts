/**
 * The audit log's recording (docs/dashboard.md, "Audit log"), as hooks every write route
 * of a scope is given, so no route records anything itself: every successful (2xx) POST,
 * PATCH, PUT and DELETE of the scope appends one entry, its action the route's operationId.
 *
 * - Who: the signed-in user (/dashboard/v1), the API key (/v1), the operator (/admin/v1,
 *   whose entry belongs to the target's organizer; a write outside any organizer is not
 *   recorded). Of the dashboard's public routes, those that let a person in (sign-in,
 *   an accepted invitation, the first owner's set-up) are recorded against the organizer
 *   they opened.
 * - What: the target is the path's `{id}` (its type from `config.resource`), or what the
 *   write created (the response's `object` and `id`); TARGETS below names the few routes
 *   where neither fits.
 * - Changes: the target's row is read before the handler (preHandler) and again by the
 *   insert itself; the database keeps the fields that differ (audit_changes() of
 *   migrations/0017_audit_log.sql). A creation lists the fields it set. Secrets are never
 *   values: the log is built from the stored rows (which hold no raw key, password or
 *   code) and the migration redacts the webhook secret, password and TOTP fields.
 * - When: in onSend, awaited, so the entry exists before the response leaves. It runs
 *   before the idempotency layer's onSend, which goes last (./idempotency.ts): with an
 *   Idempotency-Key the entry joins the request's transaction and commits with the change
 *   or not at all; a replay (`idempotent-replayed: true`) records nothing again.
 *
 * "Before" is read without the handler's lock: a write racing another write to the same
 * target may show the other's result as its before. The after state is exact.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
  preSerializationHookHandler,
} from 'fastify';
import { recordAuditEntry, snapshotBefore, SNAPSHOT_TYPES } from '../../domain/audit/audit-log.ts';
import type { AuditActorType } from '../../db/schema.ts';
import type {} from './session-auth.ts';
import { hooksOf, methodsOf } from '../route-hooks.ts';

type Surface = 'v1' | 'dashboard' | 'admin';

/**
 * Where an entry's target comes from: `params`, the path's id (a change of an existing
 * resource); `body`, the response's `object` and `id` (a creation); `self`, the signed-in
 * user; `organizer`, the session's organizer; `person`, the user of a session body that a
 * sign-in answers (the actor too); `session`, the signed-in session; `key`, the API key
 * the request created and acts as (a door device's claim: the actor too), a creation.
 */
type TargetSource = 'params' | 'body' | 'self' | 'organizer' | 'person' | 'session' | 'key';

interface TargetRule {
  from: TargetSource;
  /** The target type, when the route's resource or the body's object does not say it. */
  type?: string;
}

/** The routes whose target the defaults (path id, else the created object) get wrong. */
const TARGETS: Readonly<Record<string, TargetRule>> = {
  // Creations under a parent: the target is what was created, not the parent of the path.
  createQuestion: { from: 'body' },
  adminCreateQuestion: { from: 'body' },
  createHold: { from: 'body' },
  adminCreateHold: { from: 'body' },
  adminCreateApiKey: { from: 'body' },
  // A door device is answered without `object` (docs/dashboard.md, "Door devices").
  createDoorDevice: { from: 'body', type: 'door_device' },
  // A door device's claim creates its key, and the request acts as that key from then on.
  claimDoorDevice: { from: 'key', type: 'api_key' },
  // An upload of door scans has no one target: the entry names the upload; GET /v1/check_ins lists its scans.
  uploadCheckIns: { from: 'body', type: 'check_in_upload' },
  // A refund is a resource of its own (settled later by its id): the entry shows what it holds.
  refundOrder: { from: 'body' },
  adminRefundOrder: { from: 'body' },
  // The order whose e-tickets went out again, not the e-mail.
  resendTickets: { from: 'params', type: 'order' },
  // The person and the session.
  signIn: { from: 'person' },
  acceptInvitation: { from: 'person' },
  setUpOwner: { from: 'person' },
  switchOrganizer: { from: 'person' },
  signOut: { from: 'session', type: 'session' },
  updateProfile: { from: 'self' },
  changePassword: { from: 'self' },
  startTotpEnrolment: { from: 'self' },
  confirmTotpEnrolment: { from: 'self' },
  removeTotp: { from: 'self' },
  updateOrganizerSettings: { from: 'organizer' },
  updateAppleWalletSettings: { from: 'organizer' },
  deleteAppleWalletSettings: { from: 'organizer' },
  updateGoogleWalletSettings: { from: 'organizer' },
  deleteGoogleWalletSettings: { from: 'organizer' },
};

/** Dashboard routes without a session that are recorded (they let a person in). */
const PERSON_SOURCES: ReadonlySet<TargetSource> = new Set(['person']);

/** Object names and resource names that differ from the target type. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  registration_question: 'question',
  user_session: 'session',
};

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** 'Webhook endpoint' → 'webhook_endpoint', 'API key' → 'api_key'. */
function typeName(name: string): string {
  const snake = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_');
  return TYPE_ALIASES[snake] ?? snake;
}

interface Planned {
  rule: TargetRule;
  /** The target known before the handler runs (params, self, organizer, session). */
  type: string | undefined;
  id: string | undefined;
  before: string | null;
  body: unknown;
}

const planned = new WeakMap<FastifyRequest, Planned>();

function ruleOf(request: FastifyRequest): TargetRule {
  const operationId = request.routeOptions.schema?.operationId;
  const rule = operationId === undefined ? undefined : TARGETS[operationId];
  if (rule !== undefined) return rule;
  const params = request.params as { id?: unknown } | undefined;
  return typeof params?.id === 'string' && request.routeOptions.config.resource !== undefined
    ? { from: 'params' }
    : { from: 'body' };
}

/** The target known before the handler, or undefined ids when it comes from the response. */
function knownTarget(request: FastifyRequest, rule: TargetRule): { type?: string; id?: string } {
  const session = request.session;
  switch (rule.from) {
    case 'params': {
      const resource = request.routeOptions.config.resource;
      return {
        type: rule.type ?? (resource === undefined ? undefined : typeName(resource)),
        id: (request.params as { id?: string }).id,
      };
    }
    case 'self':
      return { type: 'user', id: session?.userId };
    case 'organizer':
      return { type: 'organizer', id: session?.organizerId };
    case 'session':
      return { type: rule.type ?? 'session', id: session?.sessionId };
    default:
      return {};
  }
}

/** Whether an entry compares the target's fields: not for sign-ins and sessions. */
const comparesFields = (rule: TargetRule) => rule.from !== 'person' && rule.from !== 'session';

function recorded(request: FastifyRequest, surface: Surface, rule: TargetRule): boolean {
  if (!WRITE_METHODS.has(request.method) || request.routeOptions.schema?.operationId === undefined) return false;
  if (surface !== 'dashboard') return true;
  return request.session !== undefined || PERSON_SOURCES.has(rule.from);
}

/**
 * Gives the recording hooks to every write route of a scope (call it before the scope's
 * routes are registered). Route hooks rather than scope hooks, so a read runs none of
 * them. Each goes first among its route's hooks, where a scope hook would run; the
 * idempotency layer stores the response and commits after every other onSend hook.
 */
export function registerAudit(app: FastifyInstance, surface: Surface): void {
  const planBeforeHandler: preHandlerHookHandler = (request, _reply, done) => {
    plan(request, surface).then(() => done(), done);
  };
  const keepResponseBody: preSerializationHookHandler<unknown> = (request, _reply, payload, done) => {
    const planning = planned.get(request);
    if (planning !== undefined) planning.body = payload;
    done(null, payload);
  };
  const recordBeforeSending: onSendHookHandler<unknown> = (request, reply, payload, done) => {
    const planning = planned.get(request);
    if (planning === undefined) return done(null, payload);
    planned.delete(request);
    if (reply.statusCode < 200 || reply.statusCode >= 300 || reply.getHeader('idempotent-replayed') === 'true')
      return done(null, payload);
    record(request, reply, surface, planning).then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  };
  app.addHook('onRoute', (route) => {
    if (!methodsOf(route).some((method) => WRITE_METHODS.has(method))) return;
    route.preHandler = [planBeforeHandler, ...hooksOf(route.preHandler)];
    route.preSerialization = [keepResponseBody, ...hooksOf(route.preSerialization)];
    route.onSend = [recordBeforeSending, ...hooksOf(route.onSend)];
  });
}

/** Before the handler: whether the write is recorded, its target if known, and that target's row. */
async function plan(request: FastifyRequest, surface: Surface): Promise<void> {
  const rule = ruleOf(request);
  if (!recorded(request, surface, rule)) return;
  const { type, id } = knownTarget(request, rule);
  const before =
    comparesFields(rule) && type !== undefined && id !== undefined && SNAPSHOT_TYPES.has(type)
      ? await snapshotBefore(request.db, type, id)
      : null;
  planned.set(request, { rule, type, id, before, body: undefined });
}

interface Actor {
  type: AuditActorType;
  id: string | null;
  label: string | null;
}

type Body = { id?: unknown; object?: unknown; organizer_id?: unknown; user?: { id?: unknown; email?: unknown } };

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function actorOf(request: FastifyRequest, surface: Surface, plan: Planned, body: Body): Actor {
  if (plan.rule.from === 'person') return { type: 'user', id: text(body.user?.id), label: text(body.user?.email) };
  if (surface === 'admin') return { type: 'operator', id: null, label: 'operator' };
  if (request.session !== undefined) return { type: 'user', id: request.session.userId, label: null };
  return { type: 'api_key', id: request.auth?.apiKeyId ?? null, label: null };
}

function organizerOf(request: FastifyRequest, surface: Surface, plan: Planned, body: Body): string | null {
  // A sign-in (or a switch) is recorded against the organizer it opened.
  if (plan.rule.from === 'person') return text(body.organizer_id);
  // The operator's: the target's organizer, read by the insert (or named by the answer).
  if (surface === 'admin') return text(body.organizer_id);
  return request.auth?.organizerId ?? null;
}

async function record(request: FastifyRequest, reply: FastifyReply, surface: Surface, plan: Planned): Promise<void> {
  const body = (plan.body !== null && typeof plan.body === 'object' ? plan.body : {}) as Body;
  const { rule } = plan;
  let type = plan.type;
  let id = plan.id ?? null;
  if (rule.from === 'body') {
    const object = text(body.object);
    type = rule.type ?? (object === null ? undefined : typeName(object));
    id = text(body.id);
  } else if (rule.from === 'person') {
    type = 'user';
    id = text(body.user?.id);
  } else if (rule.from === 'key') {
    type = rule.type;
    id = request.auth?.apiKeyId ?? null;
  }
  const resource = request.routeOptions.config.resource;
  type ??= resource === undefined ? 'unknown' : typeName(resource);
  const creation = (rule.from === 'body' || rule.from === 'key') && reply.statusCode === 201;
  const diff = comparesFields(rule) && SNAPSHOT_TYPES.has(type) && (plan.before !== null || creation);
  const actor = actorOf(request, surface, plan, body);
  const organizerId = organizerOf(request, surface, plan, body);
  if (organizerId === null && surface !== 'admin') return;
  const userAgent = request.headers['user-agent'];
  try {
    await recordAuditEntry(request.db, {
      organizerId,
      occurredAt: request.server.deps.clock.now(),
      actorType: actor.type,
      actorId: actor.id,
      actorLabel: actor.label,
      action: request.routeOptions.schema!.operationId!,
      targetType: type,
      targetId: id,
      diff,
      before: plan.before,
      ip: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent : null,
      requestId: request.id,
    });
  } catch (err) {
    // Inside an idempotent request's transaction the failure aborts it, so the change is
    // not committed either (the idempotency layer answers 500). Otherwise the change is
    // already committed and its answer stands; the missing entry is logged.
    request.log.error({ err, action: request.routeOptions.schema?.operationId }, 'audit log: entry not recorded');
  }
}
