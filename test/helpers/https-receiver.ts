/**
 * A local HTTPS webhook receiver for tests: listens on 127.0.0.1 with a
 * throwaway self-signed certificate for `localhost` (plus hooks.test.localhost,
 * 127.0.0.1 and ::1), records every request and answers through a
 * swappable handler. Pass `ca` to the sender so it trusts the certificate.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface ReceivedRequest {
  method: string;
  /** Path and query string, e.g. `/hooks?x=1`. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Called once the request body has been read; it must end `res` itself (or never, to simulate a hang). */
export type ReceiverHandler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

export interface HttpsReceiver {
  /** `https://localhost:<port><path>`; the certificate is valid for that name. */
  url(path?: string): string;
  port: number;
  /** PEM of the self-signed certificate, to trust as the only CA. */
  ca: string;
  requests: ReceivedRequest[];
  setHandler(handler: ReceiverHandler): void;
  /** TCP connections accepted so far, to prove that a refused send never connected. */
  connectionCount(): number;
  close(): Promise<void>;
}

const respondOk: ReceiverHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

export async function startHttpsReceiver(handler: ReceiverHandler = respondOk): Promise<HttpsReceiver> {
  const { key, cert } = await selfSignedCertificate();
  const requests: ReceivedRequest[] = [];
  let currentHandler = handler;
  let connections = 0;

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      Promise.resolve(currentHandler(received, res)).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: (path = '/') => `https://localhost:${port}${path}`,
    port,
    ca: cert,
    requests,
    setHandler: (next) => {
      currentHandler = next;
    },
    connectionCount: () => connections,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Hanging handlers keep their sockets open; close() must not wait for them.
        server.closeAllConnections();
      }),
  };
}

let certificate: Promise<{ key: string; cert: string }> | undefined;

/** Generated once per test process with the system's openssl. */
function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= generateCertificate();
  return certificate;
}

async function generateCertificate(): Promise<{ key: string; cert: string }> {
  const run = promisify(execFile);
  await run('which', ['openssl']).catch(() => {
    throw new Error('openssl is required to generate the test receiver certificate, and is not on PATH.');
  });
  const dir = await mkdtemp(join(tmpdir(), 'marquee-receiver-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    // EC keys generate instantly; a one-day certificate is plenty for a test run.
    await run('openssl', [
      'req',
      '-x509',
      '-nodes',
      '-days',
      '1',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,DNS:hooks.test.localhost,IP:127.0.0.1,IP:::1',
    ]);
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
