/**
 * Bearer API key authentication for /v1: resolves the organizer from the key and
 * enforces the route's scope. Cookies are never read. Every failure to authenticate
 * gives the same 401 body and www-authenticate header.
 */
import type {
  FastifyContextConfig,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import type { Socket } from 'node:net';
import { authenticate, LastPresentedKey, type AuthContext, type Scope } from '../../domain/auth/api-keys.ts';
import type { AppDeps } from '../context.ts';
import { ApiError, unauthorized } from '../errors.ts';
import { methodsOf } from '../route-hooks.ts';

const API_REALM = 'marquee-api';

export function bearerToken(request: FastifyRequest): string | undefined {
  return bearerTokenOf(request.headers.authorization);
}

const presentedKeys = new WeakMap<Socket, LastPresentedKey>();

/** The connection's memo of the last key presented on it: a keep-alive connection hashes its key once. */
export function presentedKeysOf(socket: Socket): LastPresentedKey {
  let memo = presentedKeys.get(socket);
  if (memo === undefined) presentedKeys.set(socket, (memo = new LastPresentedKey()));
  return memo;
}

/** The token of an `Authorization: Bearer <token>` header value; undefined for any other. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

const EITHER_SCOPE: readonly Scope[] = ['read', 'write'];

/** The scopes that open a route for one of its methods, any one of them. */
function acceptedScopes(configured: FastifyContextConfig['scope'], method: string): readonly Scope[] {
  if (configured === 'any') return EITHER_SCOPE;
  if (typeof configured === 'string') return [configured];
  if (configured) return configured;
  return [method === 'GET' || method === 'HEAD' ? 'read' : 'write'];
}

/**
 * The /v1 authentication of one route: an onRequest hook with the route's accepted
 * scopes worked out once, when the route is added, so a request reads no route options.
 * A callback hook rather than an async one: a key in the auth cache is decided
 * synchronously, and the request goes on without a promise.
 */
export function apiKeyAuth(
  route: Pick<RouteOptions, 'method' | 'config'>,
  deps: Pick<AppDeps, 'db' | 'clock' | 'caches'>,
): onRequestHookHandler {
  const scopesByMethod = new Map(
    methodsOf(route).map((method) => [method, acceptedScopes(route.config?.scope, method)]),
  );
  return (request, _reply, done) => {
    const token = bearerToken(request);
    if (token === undefined) return done(unauthorized(API_REALM));
    const accepted = scopesByMethod.get(request.method)!;
    const auth = authenticate(
      deps.db,
      token,
      deps.clock.now(),
      deps.caches.apiKeys,
      presentedKeysOf(request.raw.socket),
    );
    if (auth instanceof Promise) auth.then((loaded) => admit(request, accepted, loaded, done), done);
    else admit(request, accepted, auth, done);
  };
}

function admit(
  request: FastifyRequest,
  accepted: readonly Scope[],
  auth: AuthContext | undefined,
  done: HookHandlerDoneFunction,
): void {
  if (!auth) return done(unauthorized(API_REALM));
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
