/**
 * Bearer API key authentication for /v1: resolves the organizer from the key and
 * enforces the route's scope. Cookies are never read. Every failure to authenticate
 * gives the same 401 body and www-authenticate header.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { authenticate, type AuthContext, type Scope } from '../../domain/auth/api-keys.ts';
import { ApiError, unauthorized } from '../errors.ts';

const API_REALM = 'marquee-api';

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

const EITHER_SCOPE: readonly Scope[] = ['read', 'write'];

/** The scopes that open the route, any one of them. */
function acceptedScopes(request: FastifyRequest): readonly Scope[] {
  const configured = request.routeOptions.config?.scope;
  if (configured === 'any') return EITHER_SCOPE;
  if (typeof configured === 'string') return [configured];
  if (configured) return configured;
  return [request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write'];
}

/**
 * The /v1 onRequest hook. A callback hook rather than an async one: a key in the auth
 * cache is decided synchronously, and the request goes on without a promise.
 */
export function apiKeyAuth(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const token = bearerToken(request);
  if (token === undefined) return done(unauthorized(API_REALM));
  const { db, clock, caches } = request.server.deps;
  const auth = authenticate(db, token, clock.now(), caches.apiKeys);
  if (auth instanceof Promise) auth.then((loaded) => admit(request, loaded, done), done);
  else admit(request, auth, done);
}

function admit(request: FastifyRequest, auth: AuthContext | undefined, done: HookHandlerDoneFunction): void {
  if (!auth) return done(unauthorized(API_REALM));
  const accepted = acceptedScopes(request);
  if (!accepted.some((scope) => auth.scopes.includes(scope))) {
    // Named after the scope an integration's key would need; a door device's key is
    // refused every operation but its tickets' (docs/door.md).
    const needed = accepted.find((scope) => scope !== 'check_in') ?? 'check_in';
    return done(
      new ApiError(
        'forbidden_scope',
        `This API key lacks the \`${needed}\` scope that ${request.method} requests need.`,
      ),
    );
  }
  request.auth = auth;
  done();
}
