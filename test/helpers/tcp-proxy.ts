/**
 * A loopback TCP proxy for fault tests: listens on 127.0.0.1 (a free port) and forwards
 * each connection to a target on 127.0.0.1.
 * - cut(): every open connection is closed and the port stops listening, so new
 *   connections are refused, as when the server's host goes away or restarts;
 * - stall(): the silent kind of partition: every connection stays open but nothing passes
 *   any more, and new ones are accepted and never answered;
 * - restore(): listens (on the same port) and forwards again; stalled connections drop.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string;
  /** Closes every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Stops forwarding anything, without closing a connection; new ones hang. */
  stall(): void;
  /** Accepts (and forwards) connections again; stalled ones are dropped. */
  restore(): Promise<void>;
  /** Connections currently forwarded. */
  openConnections(): number;
  close(): Promise<void>;
}

/** Sees every byte the proxy forwards: which side sent it and on which connection (numbered from 1). */
export type ProxyTap = (from: 'client' | 'server', connection: number, chunk: Buffer) => void;

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1', tap?: ProxyTap): Promise<TcpProxy> {
  let connections = 0;
  const pairs = new Set<[Socket, Socket]>();
  const stalled = new Set<Socket>();
  let stalling = false;
  let closed = false;

  const server = createServer((client) => {
    client.on('error', () => {});
    if (stalling) {
      client.pause();
      stalled.add(client);
      client.on('close', () => stalled.delete(client));
      return;
    }
    const upstream = connect({ port: targetPort, host: targetHost });
    upstream.on('error', () => {});
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      if (!pairs.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    if (tap) {
      const connection = ++connections;
      client.on('data', (chunk: Buffer) => tap('client', connection, chunk));
      upstream.on('data', (chunk: Buffer) => tap('server', connection, chunk));
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  function dropAll(): void {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      for (const socket of pair) socket.destroy();
    }
    for (const socket of [...stalled]) socket.destroy();
    stalled.clear();
  }

  async function cut(): Promise<void> {
    stalling = false;
    if (!server.listening) return dropAll();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    dropAll();
    await stopped;
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
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        for (const socket of pair) {
          socket.unpipe();
          socket.pause();
          stalled.add(socket);
        }
      }
    },
    async restore() {
      if (closed) throw new Error('the proxy is closed');
      if (stalling) dropAll();
      stalling = false;
      if (server.listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    openConnections: () => pairs.size,
    async close() {
      closed = true;
      await cut();
    },
  };
}
