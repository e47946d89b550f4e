/**
 * Raw HTTP/1.1 over a real loopback socket, for what inject() cannot show: bytes that
 * arrive slowly, requests Node's parser refuses, connections the server closes.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Listens on 127.0.0.1, port chosen by the system; returns the port. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Milliseconds from connect to the close, once the connection is closed (by either side). */
  closed: Promise<number>;
  isClosed(): boolean;
  /** Resolves once `text` has been received (rejects after `timeoutMs`). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  write(data: string | Buffer): void;
}

export async function openRaw(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // a reset is a close here
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const opened = performance.now();
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      resolve(performance.now() - opened);
    }),
  );
  return {
    socket,
    received: () => text,
    closed,
    isClosed: () => isClosed,
    async waitFor(expected, timeoutMs = 2000) {
      const deadline = performance.now() + timeoutMs;
      while (!text.includes(expected)) {
        if (performance.now() > deadline || isClosed)
          throw new Error(`did not receive ${JSON.stringify(expected)}; got ${JSON.stringify(text)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    write: (data) => {
      if (!socket.destroyed) socket.write(data);
    },
  };
}

export interface RawResponse {
  statusLine: string;
  /** Header names, lower case, in the order they came. */
  names: string[];
  headers: Record<string, string>;
  body: string;
}

/** Parses one complete response (no chunked bodies: the raw error responses have content-length). */
export function parseRawResponse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`no complete response head in ${JSON.stringify(text)}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const names: string[] = [];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    names.push(name);
    headers[name] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  return { statusLine: statusLine!, names, headers, body: text.slice(end + 4, end + 4 + length) };
}

/** Sends `request` on a new connection and returns the response once the server closed it. */
export async function exchangeUntilClosed(port: number, request: string | Buffer): Promise<RawResponse> {
  const conn = await openRaw(port);
  conn.write(request);
  const timer = setTimeout(() => conn.socket.destroy(), 5000);
  await conn.closed;
  clearTimeout(timer);
  return parseRawResponse(conn.received());
}
