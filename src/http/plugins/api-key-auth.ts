/**
 * Bearer API key authentication for /v1: resolves the organizer from the key and
 * enforces the route's scope. Cookies are never read. Every failure to authenticate
 * gives the same 401 body and www-authenticate header.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type Scope } from '../../domain/auth/api-keys.ts';
import { forbidden, unauthorized } from '../errors.ts';

export const API_REALM = 'marquee-api';

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

export function requiredScope(request: FastifyRequest): Scope {
  const configured = request.routeOptions.config?.scope;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

export async function apiKeyAuth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const token = bearerToken(request);
  const { db, clock, caches } = request.server.deps;
  const auth = token === undefined ? undefined : await authenticate(db, token, clock.now(), caches.apiKeys);
  if (!auth) throw unauthorized(API_REALM);
  const scope = requiredScope(request);
  if (!auth.scopes.includes(scope)) {
    throw forbidden(`This API key lacks the \`${scope}\` scope that ${request.method} requests need.`);
  }
  request.auth = auth;
}
