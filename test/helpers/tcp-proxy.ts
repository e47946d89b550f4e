/**
 * A loopback TCP proxy for fault tests: listens on 127.0.0.1 (a free port) and forwards
 * each connection to a target on 127.0.0.1. cut() destroys every open connection (both
 * sides see a reset) and refuses new ones until restore(), as a network cut or a
 * database restart looks to the service. stall() is the silent kind of partition: every
 * connection stays open but nothing passes any more, and new ones are accepted and never
 * answered; restore() drops the stalled connections and forwards new ones again.
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string;
  /** Drops every open connection and refuses new ones. */
  cut(): void;
  /** Stops forwarding anything, without closing a connection; new ones hang. */
  stall(): void;
  /** Accepts (and forwards) connections again; stalled ones are dropped. */
  restore(): void;
  /** Connections currently forwarded. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const stalled = new Set<Socket>();
  let refusing = false;
  let stalling = false;

  const server = createServer((client) => {
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    if (stalling) {
      client.pause();
      stalled.add(client);
      client.on('error', () => {}).on('close', () => stalled.delete(client));
      return;
    }
    const upstream = connect({ port: targetPort, host: targetHost });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  function dropAll(): void {
    for (const [client, upstream] of pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    pairs.clear();
    for (const socket of stalled) socket.resetAndDestroy();
    stalled.clear();
  }

  function cut(): void {
    refusing = true;
    dropAll();
  }

  return {
    port,
    rewrite(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut,
    stall() {
      stalling = true;
      for (const pair of pairs) {
        pairs.delete(pair);
        for (const socket of pair) {
          socket.unpipe();
          socket.pause();
          stalled.add(socket);
        }
      }
    },
    restore() {
      if (stalling) dropAll();
      refusing = false;
      stalling = false;
    },
    openConnections: () => pairs.size,
    close() {
      cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
