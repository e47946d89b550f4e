/**
 * Whether the API is draining before it stops (docs/deploy.md, "Rolling restarts behind a
 * load balancer"). From SIGTERM until the drain period ends, /readyz answers 503 so the
 * balancer's health check takes this process out of rotation, while every other request
 * is still served; each response meanwhile carries `Connection: close`, so keep-alive
 * clients (the balancer among them) open their next connection anew, and it lands on
 * another process. One state per app: tests build many apps in one process.
 */
import type { FastifyReply } from 'fastify';

export interface ShutdownState {
  /** True from beginDraining() on; never false again. */
  readonly draining: boolean;
  beginDraining(): void;
}

export function createShutdownState(): ShutdownState {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    beginDraining() {
      draining = true;
    },
  };
}

/** What /readyz says while draining: why, and what a person at the balancer can do. */
export const SHUTTING_DOWN_DETAIL =
  'This process is shutting down and no longer takes new traffic; send requests to another instance (the load balancer does so once its health check sees this answer).';

/**
 * While draining, the response closes its connection (called by the root onRequest hook).
 * Node ends the socket after a response whose `Connection` header says `close`, so no
 * connection is left idle for the final close to cut under a request the client is
 * already sending.
 */
export function closeConnectionWhileDraining(state: ShutdownState, reply: FastifyReply): void {
  if (state.draining) reply.header('connection', 'close');
}
