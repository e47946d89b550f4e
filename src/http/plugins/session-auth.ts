/**
 * The defences of /dashboard/v1 (docs/dashboard.md, "Sessions and their defences"), as
 * hooks of its scope: the session cookie (set, cleared, read), the cross-site check of
 * every write, the session's CSRF token, the role's permission, and the sign-in
 * throttle. /v1 never registers any of them and never parses a cookie.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import {
  authenticateSession,
  type IssuedSession,
  type SessionAuth,
  type SignInOrigin,
} from '../../domain/people/sessions.ts';
import { judge, OPERATION_PERMISSIONS } from '../../domain/people/permissions.ts';
import { DomainError } from '../../errors/domain-error.ts';
import { ApiError } from '../errors.ts';
import { rateLimitHeaders, type RateLimitBucket } from '../rate-limit/limiter.ts';
import { signInDenialDetail } from './rate-limit.ts';

const COOKIE = 'marquee_session';
/** Over HTTPS the cookie is `__Host-` prefixed: Secure, Path=/, no Domain, set by this host only. */
const SECURE_COOKIE = `__Host-${COOKIE}`;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `public`: a dashboard route that takes no session (sign-in, the one-time links). */
    dashboardAccess?: 'public';
  }
  interface FastifyRequest {
    /** The signed-in person of a /dashboard/v1 request (request.auth is the same object). */
    session: SessionAuth | undefined;
  }
}

/** The service's own origin as this request reached it, and PUBLIC_URL's. */
function ownOrigins(request: FastifyRequest): (string | undefined)[] {
  return [originOf(`${request.protocol}://${request.host}`), originOf(request.server.deps.config.publicUrl)];
}

/** An origin in its serialized form (default port dropped, lower case), or undefined for garbage. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function servedOverHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https' || request.server.deps.config.publicUrl.startsWith('https:');
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, issued: IssuedSession): void {
  const secure = servedOverHttps(request);
  reply.setCookie(secure ? SECURE_COOKIE : COOKIE, issued.token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    expires: issued.auth.expiresAt,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  const secure = servedOverHttps(request);
  reply.clearCookie(secure ? SECURE_COOKIE : COOKIE, { httpOnly: true, sameSite: 'strict', path: '/', secure });
}

/** Where a sign-in comes from, as the user's list of sessions shows it. */
export function signInOriginOf(request: FastifyRequest): SignInOrigin {
  return { userAgent: request.headers['user-agent'], ip: request.ip };
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * Every write to /dashboard/v1, signed in or not (a forged sign-in is an attack too):
 * it must come from the service's own pages. `Sec-Fetch-Site`, when the browser sends
 * it, must say same-origin; `Origin` must be the service's own, or be absent with
 * `Sec-Fetch-Site: same-origin`.
 */
export async function refuseCrossSiteWrites(request: FastifyRequest): Promise<void> {
  if (!WRITE_METHODS.has(request.method)) return;
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin')
    throw new ApiError(
      'csrf_failed',
      `This request came from another site (Sec-Fetch-Site: ${String(fetchSite)}); the dashboard API takes writes from its own pages only.`,
    );
  const origin = request.headers.origin;
  if (origin === undefined) {
    if (fetchSite === 'same-origin') return;
    throw new ApiError(
      'csrf_failed',
      'A write to the dashboard API needs an Origin header naming this service (browsers send it); none was sent.',
    );
  }
  const presented = originOf(origin);
  if (presented === undefined || !ownOrigins(request).includes(presented))
    throw new ApiError(
      'csrf_failed',
      `The Origin ${origin} is not this service; the dashboard API takes writes from its own pages only.`,
    );
}

/**
 * The session cookie's value, from the cookie of this request's scheme only. Over HTTPS
 * the unprefixed cookie is never read: a sibling subdomain (Domain=) or a plain-HTTP
 * response can plant one, and only the `__Host-` prefix proves this host set it.
 */
function sessionToken(request: FastifyRequest): string | undefined {
  return request.cookies[servedOverHttps(request) ? SECURE_COOKIE : COOKIE];
}

const SIGN_IN_FIRST =
  'Sign in first: the dashboard API takes the session cookie that POST /dashboard/v1/session sets (API keys work on /v1 only).';

/** The signed-in scope's onRequest hook: the session, or the 401. */
export async function sessionAuth(request: FastifyRequest): Promise<void> {
  const token = sessionToken(request);
  const { db, clock, config } = request.server.deps;
  const session = token === undefined ? undefined : await authenticateSession(db, token, config.sessions, clock.now());
  if (!session) throw new ApiError('unauthorized', SIGN_IN_FIRST);
  request.session = session;
  request.auth = session;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** After sessionAuth: a write carries the session's own CSRF token (compared in constant time). */
export async function requireCsrfToken(request: FastifyRequest): Promise<void> {
  if (!WRITE_METHODS.has(request.method) || request.session === undefined) return;
  const header = request.headers['x-csrf-token'];
  if (typeof header !== 'string' || header === '')
    throw new ApiError(
      'csrf_failed',
      'A write to the dashboard API needs the x-csrf-token header: the csrf_token of the session body.',
    );
  if (!timingSafeEqual(digest(header), digest(request.session.csrfToken)))
    throw new ApiError(
      'csrf_failed',
      'The x-csrf-token header is not this session’s token (it changes at every sign-in): read it again from GET /dashboard/v1/session.',
    );
}

/** After sessionAuth: the role must hold a permission the operation names (permissions.ts). */
export async function requirePermission(request: FastifyRequest): Promise<void> {
  const session = request.session;
  if (session === undefined) return;
  const operationId = request.routeOptions.schema?.operationId;
  const requirement = operationId === undefined ? undefined : OPERATION_PERMISSIONS[operationId];
  if (requirement === undefined) throw new Error(`dashboard operation ${operationId} has no permission entry`);
  const verdict = judge(session.role, requirement);
  if (!verdict.allowed)
    throw new DomainError(
      'role_forbidden',
      `Your role (${session.role}) does not include the \`${verdict.needs}\` permission this operation needs. An owner can change your role.`,
      verdict.needs,
    );
}

/** onRoute of the signed-in scope: a route whose operation is not in the matrix is a start-up error. */
export function assertOperationInMatrix(route: RouteOptions): void {
  const operationId = route.schema?.operationId;
  if (route.config?.dashboardAccess === 'public') return;
  if (operationId === undefined || !(operationId in OPERATION_PERMISSIONS))
    throw new Error(
      `The dashboard route ${String(route.method)} ${route.url} (${operationId ?? 'no operationId'}) has no entry in OPERATION_PERMISSIONS (src/domain/people/permissions.ts).`,
    );
}

/**
 * Sign-in throttling, before the password is checked: per client IP and per e-mail
 * address (its SHA-256, never the address), in the shared counters when Redis is set.
 */
export async function limitSignInAttempts(request: FastifyRequest, email: string): Promise<void> {
  const attempts: [RateLimitBucket, string][] = [
    ['signin_ip', request.ip],
    ['signin_account', createHash('sha256').update(email.toLowerCase()).digest('base64url')],
  ];
  for (const [bucket, key] of attempts) {
    const decision = await request.server.deps.rateLimiter.consume(bucket, key);
    if (!decision.allowed)
      throw new ApiError(
        'rate_limited',
        signInDenialDetail(bucket, decision.limit),
        rateLimitHeaders(bucket, decision),
      );
  }
}
