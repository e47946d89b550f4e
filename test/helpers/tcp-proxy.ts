/**
 * A loopback TCP proxy to inject a network fault for real: a client (Redis, PostgreSQL,
 * anything over TCP) connects to the proxy's port, and every connection is forwarded to
 * 127.0.0.1:targetPort. cut() destroys every open connection and refuses new ones (nothing
 * listens on the port any more, as when the server's host goes away); restore() accepts
 * again on the same port; close() ends it for good.
 */
import { once } from 'node:events';
import net from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Destroys every forwarded connection and stops accepting; resolves once closed. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  /** Cuts (if not cut) and releases the port. */
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A cut resets both sides; the errors that follow are the point, not a failure.
    socket.on('error', () => {});
  };
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort });
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;

  const cut = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  let closed = false;
  return {
    port,
    cut,
    async restore() {
      if (closed) throw new Error('the proxy is closed');
      if (server.listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    async close() {
      closed = true;
      await cut();
    },
  };
}
