/**
 * Hooks given to single routes (from an onRoute hook) instead of to a whole scope: a
 * request runs only its own route's hooks, so a scope's reads skip what only its writes
 * need (the idempotency layer), and a hook can hold what it would otherwise look up on
 * every request (the route's accepted scopes, src/http/plugins/api-key-auth.ts).
 */
import type { RouteOptions } from 'fastify';

/** The methods of a route being added (one or several). */
export function methodsOf(route: Pick<RouteOptions, 'method'>): readonly string[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}

/** A route option's hooks as an array, whether it holds one, several or none. */
export function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
