/**
 * Webhook throughput: three endpoints on a local HTTPS receiver (answering 200 at once),
 * subscribed to order.created.
 *
 *  - live: Marquee as one ROLE=all process (the default deployment: the worker hears of
 *    new deliveries in-process); N orders at 16 connections; lag from the order's 201
 *    (the commit, as the buyer sees it) to the receipt of each delivery.
 *  - drain, cold: N more orders placed through a ROLE=api process with no worker running,
 *    then one new ROLE=worker process (WORKER_JOBS=webhooks) delivers the 3N queued
 *    deliveries: deliveries/s from first to last receipt, JIT warm-up, new connections
 *    and TLS handshakes included (the goal's figure, against a new bare-loop process).
 *  - drain, warm: the same worker process is frozen (SIGSTOP), N more
 *    orders are queued, and it is thawed (SIGCONT): a running worker catching up on a
 *    backlog, the steady state of a deployment.
 *  - baseline: a bare undici loop in its own process sending the same signed requests at
 *    the worker's effective concurrency (3 endpoints × PER_ENDPOINT_IN_FLIGHT): cold with
 *    the cold drain's requests; warm with the warm drain's, after sending the cold ones.
 *  - zero duplicates per endpoint over all phases.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PER_ENDPOINT_IN_FLIGHT } from '../../src/webhooks/dispatch.ts';
import { startHelper } from '../lib/child.ts';
import { processCpuMs } from '../lib/proc-cpu.ts';
import { createScratchDb } from '../lib/db.ts';
import { runLoad } from '../lib/load.ts';
import { createEvent, createOrganizerWithKey, mustCall, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { duplicates, startBenchReceiver, type BenchReceiver, type Receipt } from '../lib/receiver.ts';
import { latencySummary, round } from '../lib/stats.ts';
import { check, type Check, type ScenarioOptions, type ScenarioResult } from './types.ts';

/** The worker's effective concurrency toward the 3 endpoints: PER_ENDPOINT_IN_FLIGHT each. */
const SEND_CONCURRENCY = 3 * PER_ENDPOINT_IN_FLIGHT;

interface WebhookSetup {
  key: string;
  performanceId: string;
  ticketTypeId: string;
  endpoints: { path: string; url: string; secret: string }[];
}

export async function setupWebhooks(proc: MarqueeProcess, receiver: BenchReceiver): Promise<WebhookSetup> {
  const { key } = await createOrganizerWithKey(proc.base);
  const event = await createEvent(proc.base, key, {
    performances: 1,
    capacity: 1_000_000,
    ticketTypes: [{ name: 'General', price_minor: 3500, quantity: null }],
  });
  const endpoints = [];
  for (const n of [1, 2, 3]) {
    const path = `/hooks/${n}`;
    const url = receiver.receiver.url(path);
    const created = await mustCall<{ secret: string }>(proc.base, 'POST', '/v1/webhook_endpoints', key, {
      url,
      event_types: ['order.created'],
    });
    endpoints.push({ path, url, secret: created.secret });
  }
  return {
    key,
    performanceId: event.ticket_types[0]!.prices[0]!.performance_id,
    ticketTypeId: event.ticket_types[0]!.id,
    endpoints,
  };
}

/** Places `count` single-ticket cash orders; returns each order's 201 arrival time. */
export async function placeOrders(urls: string[], setup: WebhookSetup, count: number, connections = 16) {
  const acked = new Map<string, number>();
  const load = await runLoad({
    urls,
    connections,
    amount: count,
    method: 'POST',
    headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' },
    next: () => ({
      path: '/v1/orders',
      body: JSON.stringify({
        items: [{ performance_id: setup.performanceId, ticket_type_id: setup.ticketTypeId, quantity: 1 }],
        buyer: { first_name: 'Hook', email: 'hook@example.test' },
        tender: 'cash',
      }),
    }),
    onResponse: (status, body) => {
      if (status === 201) acked.set((JSON.parse(body) as { id: string }).id, Date.now());
    },
  });
  return { acked, load };
}

export function lagOf(receipts: Receipt[], acked: Map<string, number>) {
  const lags = receipts
    .filter((r) => acked.has(String(r.data.order_id)))
    .map((r) => r.at - acked.get(String(r.data.order_id))!);
  return latencySummary(lags);
}

export function deliveryChecks(
  label: string,
  receipts: Receipt[],
  expectedPerEndpoint: number,
  endpoints: WebhookSetup['endpoints'],
): Check[] {
  return endpoints.map((e) => {
    const mine = receipts.filter((r) => r.path === e.path);
    const dup = duplicates(mine);
    const distinct = new Set(mine.map((r) => r.webhookId)).size;
    return check(
      `${label}: ${e.path} received each order.created exactly once`,
      dup === 0 && distinct === expectedPerEndpoint,
      `${mine.length} received, ${distinct} distinct, ${dup} duplicates, ${expectedPerEndpoint} expected`,
    );
  });
}

type SignedJob = { url: string; secret: string; id: string; body: string };

/** Runs the bare sender on `jobs` (timed), after `warmup` (untimed) in the same process. */
async function bareSend(
  receiver: BenchReceiver,
  jobs: SignedJob[],
  warmup: SignedJob[] = [],
  api: 'request' | 'dispatch' = 'request',
) {
  const dir = mkdtempSync(join(tmpdir(), 'marquee-bench-sender-'));
  const file = join(dir, 'jobs.json');
  writeFileSync(file, JSON.stringify({ ca: receiver.receiver.ca, concurrency: SEND_CONCURRENCY, api, warmup, jobs }));
  const before = receiver.receipts.length;
  const sender = await startHelper('bench/lib/bare-sender.ts', [file], /done ([\d.]+) failed (\d+) cpu_ms ([\d.]+)/);
  await sender.done;
  const ms = Number(sender.match[1]);
  return {
    deliveriesPerS: jobs.length / (ms / 1000),
    cpuUsPerDelivery: (Number(sender.match[3]) * 1000) / jobs.length,
    failed: Number(sender.match[2]),
    received: receiver.receipts.length - before - warmup.length,
  };
}

/** Waits for `expected` receipts after index `from`; deliveries/s from the first to the last. */
async function measureDrain(receiver: BenchReceiver, from: number, expected: number) {
  const ok = await receiver.waitFor(from + expected, 120_000);
  const drained = receiver.receipts.slice(from);
  const times = drained.map((r) => r.at);
  const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
  return { ok: ok && drained.length === expected, drained, rate: drained.length / seconds };
}

export async function webhooksScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const n = opts.quick ? 300 : 1000;
  const receiver = await startBenchReceiver();
  const scratch = await createScratchDb('webhooks');
  const env = { WEBHOOK_ALLOW_LOOPBACK: 'true', NODE_EXTRA_CA_CERTS: receiver.caFile };
  const procs: MarqueeProcess[] = [];
  try {
    // Live, one ROLE=all process.
    const all = await startMarquee({ role: 'all', databaseUrl: scratch.url, env });
    procs.push(all);
    const setup = await setupWebhooks(all, receiver);
    const liveStarted = Date.now();
    const live = await placeOrders([all.base], setup, n);
    const liveOk = await receiver.waitFor(3 * n, 120_000);
    const liveReceipts = [...receiver.receipts];
    const liveS = (Math.max(...liveReceipts.map((r) => r.at)) - liveStarted) / 1000;
    const liveLag = lagOf(liveReceipts, live.acked);
    await all.stop();

    // Cold drain: queue 3N with no worker, then a new ROLE=worker process drains them.
    const api = await startMarquee({ role: 'api', databaseUrl: scratch.url, env });
    procs.push(api);
    await placeOrders([api.base], setup, n);
    await new Promise((r) => setTimeout(r, 300));
    const coldFrom = receiver.receipts.length;
    // With --profile, the worker process (the one measured here) writes a CPU profile on exit.
    const workerEnv = { ...env, WORKER_JOBS: 'webhooks' };
    const worker = await startMarquee({
      role: 'worker',
      databaseUrl: scratch.url,
      env: workerEnv,
      ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
    });
    procs.push(worker);
    const workerCpuAtReady = processCpuMs(worker.pid);
    const cold = await measureDrain(receiver, coldFrom, 3 * n);
    const coldWorkerCpuUs = ((processCpuMs(worker.pid) - workerCpuAtReady) * 1000) / (3 * n);
    await new Promise((r) => setTimeout(r, 500)); // its last outcomes recorded

    // Warm drain: freeze the running worker, queue 3N more, thaw it.
    process.kill(worker.pid, 'SIGSTOP');
    try {
      await placeOrders([api.base], setup, n);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      process.kill(worker.pid, 'SIGCONT');
    }
    const warmFrom = receiver.receipts.length;
    const warm = await measureDrain(receiver, warmFrom, 3 * n);
    await new Promise((r) => setTimeout(r, 500));
    const allReceipts = [...receiver.receipts];
    // Marquee stops before the baseline runs, so they never share the CPU.
    await worker.stop();
    await api.stop();

    // Baseline: the same signed requests from a bare undici loop, cold and then warm.
    const secretOf = new Map(setup.endpoints.map((e) => [e.path, e]));
    const jobsOf = (receipts: Receipt[]) =>
      receipts.map((r) => ({
        url: secretOf.get(r.path)!.url,
        secret: secretOf.get(r.path)!.secret,
        id: r.webhookId,
        body: r.body,
      }));
    const bareCold = await bareSend(receiver, jobsOf(cold.drained));
    const bareWarm = await bareSend(receiver, jobsOf(warm.drained), jobsOf(cold.drained));
    const bareWarmDispatch = await bareSend(receiver, jobsOf(warm.drained), jobsOf(cold.drained), 'dispatch');
    const ratioCold = cold.rate / bareCold.deliveriesPerS;
    const ratioWarm = warm.rate / bareWarm.deliveriesPerS;
    return {
      figures: {
        orders_per_phase: n,
        live_orders_per_s: round(live.load.reqPerS),
        live_deliveries_per_s: round((3 * n) / liveS),
        live_lag_p50_ms: liveLag.p50_ms,
        live_lag_p95_ms: liveLag.p95_ms,
        live_lag_p99_ms: liveLag.p99_ms,
        drain_deliveries_per_s: round(cold.rate),
        drain_worker_cpu_us_per_delivery: round(coldWorkerCpuUs),
        baseline_deliveries_per_s: round(bareCold.deliveriesPerS),
        baseline_cpu_us_per_delivery: round(bareCold.cpuUsPerDelivery),
        ratio_deliveries_per_s: round(ratioCold, 3),
        warm_drain_deliveries_per_s: round(warm.rate),
        warm_baseline_deliveries_per_s: round(bareWarm.deliveriesPerS),
        warm_ratio_deliveries_per_s: round(ratioWarm, 3),
        warm_dispatch_baseline_deliveries_per_s: round(bareWarmDispatch.deliveriesPerS),
        warm_dispatch_ratio_deliveries_per_s: round(warm.rate / bareWarmDispatch.deliveriesPerS, 3),
      },
      checks: [
        check('webhooks: live phase delivered 3 × N', liveOk, `${liveReceipts.length} received`),
        check('webhooks: cold drain delivered 3 × N', cold.ok, `${cold.drained.length} received`),
        check('webhooks: warm drain delivered 3 × N', warm.ok, `${warm.drained.length} received`),
        ...deliveryChecks('webhooks', allReceipts, 3 * n, setup.endpoints),
        check(
          'webhooks: baseline sent every request with 200',
          bareCold.failed + bareWarm.failed + bareWarmDispatch.failed === 0 &&
            bareCold.received === cold.drained.length &&
            bareWarm.received === warm.drained.length &&
            bareWarmDispatch.received === warm.drained.length,
          `${bareCold.received + bareWarm.received + bareWarmDispatch.received}/${cold.drained.length + 2 * warm.drained.length} received, ${bareCold.failed + bareWarm.failed + bareWarmDispatch.failed} failed`,
        ),
      ],
      goals: [
        {
          name: 'webhooks: worker drain deliveries/s ÷ bare undici loop deliveries/s (each a new process)',
          ratio: round(ratioCold, 3),
          bound: 0.8,
          kind: 'min',
        },
      ],
      notes: [
        'Lag is measured from the 201 of the order (after its commit) to the receipt, so it is a slight underestimate of commit-to-receipt.',
        `Baseline concurrency ${SEND_CONCURRENCY} = 3 endpoints × PER_ENDPOINT_IN_FLIGHT ${PER_ENDPOINT_IN_FLIGHT} (the worker's own cap).`,
        'The goal compares a new worker process draining the backlog with a new bare-loop process sending the same requests (JIT warm-up, connections and TLS handshakes on both sides). The warm pair is reported beside it: the same worker drains a second backlog queued while it was frozen (SIGSTOP), and the bare loop sends after a warm-up pass.',
        'CPU per delivery: the worker process from ready to the last receipt of the cold drain (its startup excluded, its JIT threads included), against the bare loop process over its timed jobs (process.cpuUsage()). The worker figure is read from /proc in clock ticks of 10 ms.',
        "The baselines use undici's request() (response body as a stream, drained), the idiomatic bare loop. Marquee's sender uses undici's dispatcher API (no response stream); a warm bare loop on that same API is reported as warm_dispatch_baseline, with its ratio.",
      ],
    };
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await scratch.drop();
    await receiver.close();
  }
}
