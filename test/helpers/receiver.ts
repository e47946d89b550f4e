/**
 * A loopback webhook receiver for browser tests and the worker step that feeds it: the
 * endpoint a test creates points at `receiver.url`, and `deliver` sends the due deliveries
 * in this process, on the test's clock (docs/webhooks.md, "Local development").
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import pino from 'pino';
import { deliverDue } from '../../src/webhooks/pump.ts';
import { BROWSER_SKIP } from './browser.ts';
import type { TestApp } from './app.ts';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver on `path` that records each request and answers what `answer` says. */
export function useReceiver(path: string, answer: () => { status: number; body: string }) {
  const receiver = { received: [] as Received[], url: '' };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers as Record<string, string>, body });
      const { status, body: answerBody } = answer();
      res.writeHead(status, { 'content-type': 'application/json' }).end(answerBody);
    });
  });
  before(async () => {
    if (BROWSER_SKIP) return;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  return receiver;
}

/** What a worker does: sends the due deliveries (in this process, on the test's clock). */
export function deliver(t: TestApp) {
  return deliverDue({ config: t.config, db: t.database.db, clock: t.clock, logger: pino({ level: 'silent' }) });
}
