/**
 * Noisy neighbour: one organizer's dead endpoints must not delay another's webhooks.
 *
 * Organizer D has WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZER (20) endpoints at a URL that
 * accepts connections and never answers, so each of its sends hangs for the full
 * default WEBHOOK_TIMEOUT (15 s), and places 20 orders (400 deliveries). Organizer V has
 * one healthy endpoint and places an order every 100 ms; the figure is the lag from V's
 * 201 to the arrival of its order.created. The baseline, same process and same run: V's
 * orders before D's noise started. One ROLE=all process, on PostgreSQL and on PGlite,
 * and on PostgreSQL with the code of BENCH_NOISY_BASELINE (default: the commit before
 * fair delivery), whose worker shared its slots first come, first served.
 * Goal: V's p99 under 1 s while D's endpoints hang.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/helpers/https-receiver.ts';
import { checkoutBaseline } from '../lib/baseline-tree.ts';
import { createScratchDb } from '../lib/db.ts';
import { createEvent, createOrganizerWithKey, mustCall, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { latencySummary, round } from '../lib/stats.ts';
import { check, type Check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const NOISY_ENDPOINTS = 20;
const NOISY_ORDERS = 20;
const ORDER_GAP_MS = 100;
const BASELINE_REF = process.env.BENCH_NOISY_BASELINE ?? 'f29f839';

interface Tenant {
  key: string;
  performanceId: string;
  ticketTypeId: string;
}

async function tenant(proc: MarqueeProcess, name: string): Promise<Tenant> {
  const { key } = await createOrganizerWithKey(proc.base, name);
  const event = await createEvent(proc.base, key, {
    performances: 1,
    capacity: 100_000,
    ticketTypes: [{ name: 'General', price_minor: 2000, quantity: null }],
  });
  return {
    key,
    performanceId: event.ticket_types[0]!.prices[0]!.performance_id,
    ticketTypeId: event.ticket_types[0]!.id,
  };
}

async function order(proc: MarqueeProcess, who: Tenant): Promise<string> {
  const created = await mustCall<{ id: string }>(proc.base, 'POST', '/v1/orders', who.key, {
    items: [{ performance_id: who.performanceId, ticket_type_id: who.ticketTypeId, quantity: 1 }],
    buyer: { first_name: 'Neighbour', email: 'neighbour@example.test' },
    tender: 'cash',
  });
  return created.id;
}

/** Places `count` orders of V one gap apart and returns the lag of each delivery. */
async function quietLags(
  proc: MarqueeProcess,
  quiet: Tenant,
  arrivals: Map<string, number>,
  count: number,
): Promise<{ lags: number[]; missing: number }> {
  const placed = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const id = await order(proc, quiet);
    placed.set(id, Date.now());
    await new Promise((resolve) => setTimeout(resolve, ORDER_GAP_MS));
  }
  // Two hung sends' worth of waiting: what the code before fair delivery could need.
  const deadline = Date.now() + 35_000;
  while ([...placed.keys()].some((id) => !arrivals.has(id)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const lags = [...placed].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at);
  return { lags, missing: placed.size - lags.length };
}

async function run(
  engine: 'postgresql' | 'pglite',
  count: number,
  root?: string,
): Promise<{ figures: Record<string, number>; checks: Check[] }> {
  const label = root ? `before_${engine}` : engine;
  const arrivals = new Map<string, number>();
  const hanging: ServerResponse[] = [];
  let hangingRequests = 0;
  const receiver: HttpsReceiver = await startHttpsReceiver((req, res) => {
    if (req.path.startsWith('/dead/')) {
      hangingRequests++;
      hanging.push(res); // accepted, never answered: the sender's timeout ends it
      return;
    }
    arrivals.set(String((JSON.parse(req.body) as { data: { order_id: string } }).data.order_id), Date.now());
    res.writeHead(204).end();
  });
  const dir = mkdtempSync(join(tmpdir(), 'marquee-bench-noisy-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, receiver.ca);
  const db = engine === 'postgresql' ? await createScratchDb('noisy') : null;
  const proc = await startMarquee({
    role: 'all',
    ...(db ? { databaseUrl: db.url } : { dataDir: join(dir, 'data') }),
    ...(root ? { root } : {}),
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', NODE_EXTRA_CA_CERTS: caFile },
  });
  try {
    const quiet = await tenant(proc, 'Quiet');
    await mustCall(proc.base, 'POST', '/v1/webhook_endpoints', quiet.key, {
      url: receiver.url('/quiet'),
      event_types: ['order.created'],
    });
    const alone = await quietLags(proc, quiet, arrivals, count);

    const noisy = await tenant(proc, 'Noisy');
    for (let i = 0; i < NOISY_ENDPOINTS; i++) {
      await mustCall(proc.base, 'POST', '/v1/webhook_endpoints', noisy.key, {
        url: receiver.url(`/dead/${i}`),
        event_types: ['order.created'],
      });
    }
    for (let i = 0; i < NOISY_ORDERS; i++) await order(proc, noisy);
    const beside = await quietLags(proc, quiet, arrivals, count);
    const aloneSummary = latencySummary(alone.lags);
    const besideSummary = latencySummary(beside.lags);
    return {
      figures: {
        [`${label}_alone_lag_p50_ms`]: round(aloneSummary.p50_ms),
        [`${label}_alone_lag_p99_ms`]: round(aloneSummary.p99_ms),
        [`${label}_noisy_lag_p50_ms`]: round(besideSummary.p50_ms),
        [`${label}_noisy_lag_p99_ms`]: round(besideSummary.p99_ms),
        [`${label}_noisy_sends_hanging`]: hangingRequests,
        [`${label}_quiet_missing`]: alone.missing + beside.missing,
      },
      // The code before fair delivery is measured, not checked: it misses deliveries.
      checks: root
        ? []
        : [
            check(
              `${label}: every quiet order.created arrived within 35 s`,
              alone.missing === 0 && beside.missing === 0,
              `${alone.missing} + ${beside.missing} missing of ${2 * count}`,
            ),
            check(
              `${label}: the noisy organizer's sends were hanging meanwhile`,
              hanging.length > 0,
              `${hangingRequests} sends accepted and never answered`,
            ),
            check(
              `${label}: quiet p99 under 1 s beside the noise`,
              besideSummary.p99_ms < 1000,
              `${round(besideSummary.p99_ms)} ms`,
            ),
          ],
    };
  } finally {
    for (const res of hanging) res.destroy();
    await proc.stop();
    await receiver.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function noisyNeighbourScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const count = opts.quick ? 20 : 50;
  const postgres = await run('postgresql', count);
  const pglite = await run('pglite', count);
  const baseline = checkoutBaseline(BASELINE_REF);
  let before: Awaited<ReturnType<typeof run>>;
  try {
    before = await run('postgresql', count, baseline.root);
  } finally {
    baseline.remove();
  }
  return {
    figures: { ...postgres.figures, ...pglite.figures, ...before.figures },
    checks: [...postgres.checks, ...pglite.checks, ...before.checks],
    goals: [],
    notes: [
      'Lag: from the quiet organizer\'s 201 to the arrival of its order.created; "alone" is before the noisy organizer started.',
    ],
  };
}
