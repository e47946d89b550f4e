/**
 * Scale-out: two ROLE=api processes (autocannon assigns connections round-robin across
 * both base URLs) and two ROLE=worker processes on one PostgreSQL and one Redis.
 *  - the on-sale rush with the same checks (no oversell, cap held, availability 0);
 *  - the webhook scenario live: N orders across both APIs, both workers delivering,
 *    each order.created received exactly once per endpoint;
 *  - the write limit is shared through Redis: two more API processes with
 *    RATE_LIMIT_WRITE_PER_MIN=50, 100 writes alternating between them: exactly 50 pass.
 */
import { createScratchDb } from '../lib/db.ts';
import { call, createOrganizerWithKey, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { startBenchReceiver } from '../lib/receiver.ts';
import { round } from '../lib/stats.ts';
import { planOrders, rush, rushChecks, setupRush } from './onsale.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';
import { deliveryChecks, lagOf, placeOrders, setupWebhooks } from './webhooks.ts';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function scaleOutScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const capacity = opts.quick ? 1000 : 5000;
  const cap = capacity / 5;
  const n = opts.quick ? 300 : 1000;
  const receiver = await startBenchReceiver();
  const scratch = await createScratchDb('scaleout');
  const env = { WEBHOOK_ALLOW_LOOPBACK: 'true', NODE_EXTRA_CA_CERTS: receiver.caFile, REDIS_URL };
  const procs: MarqueeProcess[] = [];
  const start = async (role: 'api' | 'worker', extra: Record<string, string> = {}) => {
    const p = await startMarquee({ role, databaseUrl: scratch.url, env: { ...env, ...extra } });
    procs.push(p);
    return p;
  };
  try {
    const api1 = await start('api');
    const api2 = await start('api');
    await start('worker');
    await start('worker');

    // On-sale rush across both APIs.
    const setup = await setupRush(api1, capacity, cap);
    setup.urls = [api1.base, api2.base];
    const figures = await rush(setup, planOrders(capacity, cap));
    const rushCheckList = (await rushChecks(scratch.url, api2.base, setup, capacity, cap, figures)).map((c) => ({
      ...c,
      name: `scale-out ${c.name}`,
    }));

    // Webhooks, live, across both APIs and both workers.
    const hooks = await setupWebhooks(api1, receiver);
    const before = receiver.receipts.length;
    const started = Date.now();
    const placed = await placeOrders([api1.base, api2.base], hooks, n);
    const delivered = await receiver.waitFor(before + 3 * n, 120_000);
    await new Promise((r) => setTimeout(r, 1000));
    const receipts = receiver.receipts.slice(before);
    const seconds = (Math.max(...receipts.map((r) => r.at)) - started) / 1000;
    const lag = lagOf(receipts, placed.acked);

    // The write limit, shared through Redis by two API processes.
    const limited1 = await start('api', { RATE_LIMIT_WRITE_PER_MIN: '50' });
    const limited2 = await start('api', { RATE_LIMIT_WRITE_PER_MIN: '50' });
    const { key } = await createOrganizerWithKey(limited1.base, 'Rate Limited');
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const base = i % 2 === 0 ? limited1.base : limited2.base;
      statuses.push((await call(base, 'POST', '/v1/events', key, {})).status);
    }
    const passed = statuses.filter((s) => s !== 429).length;

    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(figures)) out[`rush_${k}`] = v;
    Object.assign(out, {
      webhook_orders: n,
      webhook_orders_per_s: round(placed.load.reqPerS),
      webhook_deliveries_per_s: round((3 * n) / seconds),
      webhook_lag_p50_ms: lag.p50_ms,
      webhook_lag_p95_ms: lag.p95_ms,
      webhook_lag_p99_ms: lag.p99_ms,
      write_limit_passed_of_100: passed,
    });
    return {
      figures: out,
      checks: [
        ...rushCheckList,
        check('scale-out webhooks: 3 × N delivered', delivered, `${receipts.length} received`),
        ...deliveryChecks('scale-out webhooks', receipts, n, hooks.endpoints),
        check(
          'scale-out: write limit 50/min shared through Redis by two API processes',
          passed === 50,
          `${passed} of 100 alternating writes not 429`,
        ),
      ],
      goals: [],
      notes: [
        'Round-robin: autocannon binds connection i to base URL i mod 2, so each API process serves half the connections.',
      ],
    };
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await scratch.drop();
    await receiver.close();
  }
}
