/**
 * The metrics listener (docs/operations.md, "Metrics"): `GET /metrics` in Prometheus's
 * text format on METRICS_HOST:METRICS_PORT, a port of its own in every role, so worker
 * processes (which serve no HTTP otherwise) are scraped like API processes, and nothing
 * of it is on the public API's port. It answers nothing else (404).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { databaseMetrics, type DatabaseMetricsOptions } from './collectors.ts';
import { collectProcessMetrics, registry } from './registry.ts';

export interface MetricsServer {
  /** The bound port (the one asked for, or the one chosen for port 0). */
  port: number;
  close(): Promise<void>;
}

interface MetricsServerOptions extends DatabaseMetricsOptions {
  host: string;
  port: number;
}

/** A scrape must arrive within this and is answered within the database read's time. */
const REQUEST_TIMEOUT_MS = 10_000;

export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  collectProcessMetrics();
  const merged = Registry.merge([registry, databaseMetrics(opts)]);
  const server = createServer(
    { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS },
    (req, res) => {
      void answer(merged, req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}

async function answer(merged: Registry, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?', 1)[0];
  if (path !== '/metrics') {
    res
      .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      .end('Not found: the metrics are at /metrics.\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Use GET.\n');
    return;
  }
  try {
    const text = await merged.metrics();
    res.writeHead(200, { 'content-type': merged.contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : text);
  } catch (err) {
    res
      .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      .end(`Metrics collection failed: ${String(err)}\n`);
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
