/**
 * Bounds on what slow or greedy clients can hold of the HTTP server (docs/operations.md,
 * "Slow and greedy clients"): how long a request may take to arrive, how long an idle
 * connection stays open, and how many connections one address and all of them may open.
 */
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config.ts';

/**
 * Node checks the header and request deadlines on a timer, not per byte: a deadline can be
 * overrun by up to one interval. A quarter of the shorter deadline (at most 1 s, Node's
 * default is 30 s) keeps the overrun small while costing one walk over the open
 * connections per interval.
 */
function connectionsCheckingInterval(limits: HttpLimits): number {
  return Math.max(50, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

/**
 * The Node server with the limits on it, calling `handler` for every request (given to
 * Fastify as its serverFactory, app.ts).
 */
export function createLimitedServer(limits: HttpLimits, handler: RequestListener): Server {
  const options: ServerOptions = {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingInterval(limits),
    maxHeaderSize: limits.maxHeaderBytes,
    // Node answers a missing Host itself with an empty 400; the API answers it as a
    // problem instead (app.ts), so every error has one shape.
    requireHostHeader: false,
  };
  const server = createServer(options, handler);
  // The socket inactivity timeout: no byte either way for this long closes it (a client
  // that stops reading its response, or stops sending mid-request).
  server.setTimeout(limits.idleTimeoutMs);
  return server;
}

type Log = (fields: Record<string, unknown>, message: string) => void;

/**
 * Caps open connections: all together (`server.maxConnections`: Node closes a connection
 * beyond it on accept) and per remote address (counted here; one beyond the cap is
 * destroyed at once, before any byte of it is read). Logs once when an address reaches
 * its cap, not once per refused connection.
 */
export function capConnections(server: Server, limits: HttpLimits, log: Log): void {
  server.maxConnections = limits.maxConnections;
  if (limits.maxConnectionsPerIp === 0) return;
  const open = new Map<string, number>();
  const atCap = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return; // already gone
    const count = open.get(address) ?? 0;
    if (count >= limits.maxConnectionsPerIp) {
      if (!atCap.has(address)) {
        atCap.add(address);
        log(
          { remoteAddress: address, maxConnectionsPerIp: limits.maxConnectionsPerIp },
          'connections per address at their cap; refusing more',
        );
      }
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
      if (left < limits.maxConnectionsPerIp) atCap.delete(address);
    });
  });
}
