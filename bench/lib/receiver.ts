/**
 * The webhook receiver: test/helpers/https-receiver.ts (self-signed certificate for
 * localhost), answering 200 at once and stamping each request's arrival time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.ts';

export interface Receipt {
  at: number;
  path: string;
  webhookId: string;
  type: string;
  data: Record<string, unknown>;
  body: string;
}

export interface BenchReceiver {
  receiver: HttpsReceiver;
  receipts: Receipt[];
  /** A file holding the receiver's CA, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  waitFor(count: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const receipts: Receipt[] = [];
  const receiver = await startHttpsReceiver((req, res) => {
    const envelope = JSON.parse(req.body) as { type: string; data: Record<string, unknown> };
    receipts.push({
      at: Date.now(),
      path: req.path,
      webhookId: String(req.headers['webhook-id']),
      type: envelope.type,
      data: envelope.data,
      body: req.body,
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  // The helper records every request; the bench keeps its own slimmer log instead.
  const original = receiver.requests;
  const dir = mkdtempSync(join(tmpdir(), 'marquee-bench-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, receiver.ca);
  return {
    receiver,
    receipts,
    caFile,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (receipts.length < count && Date.now() < deadline) {
        original.length = 0;
        await new Promise((r) => setTimeout(r, 20));
      }
      return receipts.length >= count;
    },
    close: () => receiver.close(),
  };
}

/** Deliveries per (endpoint path, webhook-id) seen more than once. */
export function duplicates(receipts: Receipt[]): number {
  const seen = new Map<string, number>();
  for (const r of receipts) seen.set(`${r.path} ${r.webhookId}`, (seen.get(`${r.path} ${r.webhookId}`) ?? 0) + 1);
  return [...seen.values()].reduce((sum, n) => sum + (n > 1 ? n - 1 : 0), 0);
}
