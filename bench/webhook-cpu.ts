/**
 * Where a webhook delivery's CPU goes: a warm worker drains a backlog while the CPU time
 * of the worker process, of every PostgreSQL process and of this process (the HTTPS
 * receiver) is read from /proc (Linux). Prints µs of CPU per delivery for each, the
 * drain rate, the HOT share of the deliveries table's updates and, when the server has
 * pg_stat_statements loaded, the statements' time per delivery.
 *
 *   node --import tsx bench/webhook-cpu.ts [orders=5000]
 *
 * The worker (ROLE=worker, WORKER_JOBS=webhooks) warms up on 500 orders, is frozen
 * (SIGSTOP) while `orders` more are placed through a ROLE=api process, then thawed
 * (SIGCONT); the drain of the 3 × orders deliveries is what is measured. A diagnostic
 * for bench/README.md, not part of `npm run bench`.
 */
import pg from 'pg';
import { createScratchDb, PG_ADMIN_URL, withClient } from './lib/db.ts';
import { startMarquee, type MarqueeProcess } from './lib/marquee.ts';
import { postgresPids, processCpuMs } from './lib/proc-cpu.ts';
import { startBenchReceiver } from './lib/receiver.ts';
import { placeOrders, setupWebhooks } from './scenarios/webhooks.ts';

const orders = Number(process.argv[2] ?? 5000);

function snapshot(worker: number) {
  return {
    worker: processCpuMs(worker),
    receiver: processCpuMs(process.pid),
    postgres: new Map(postgresPids().map((pid) => [pid, processCpuMs(pid)])),
  };
}

async function statementsAvailable(admin: pg.Client): Promise<boolean> {
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false; // not in shared_preload_libraries
  }
}

const receiver = await startBenchReceiver();
const scratch = await createScratchDb('webhookcpu');
const env = { WEBHOOK_ALLOW_LOOPBACK: 'true', NODE_EXTRA_CA_CERTS: receiver.caFile };
const procs: MarqueeProcess[] = [];
const admin = new pg.Client(PG_ADMIN_URL);
try {
  const api = await startMarquee({ role: 'api', databaseUrl: scratch.url, env });
  procs.push(api);
  const setup = await setupWebhooks(api, receiver);
  const worker = await startMarquee({
    role: 'worker',
    databaseUrl: scratch.url,
    env: { ...env, WORKER_JOBS: 'webhooks' },
  });
  procs.push(worker);
  await placeOrders([api.base], setup, 500);
  if (!(await receiver.waitFor(1500, 60_000))) throw new Error('warm-up deliveries did not arrive');
  await new Promise((r) => setTimeout(r, 500));

  process.kill(worker.pid, 'SIGSTOP');
  try {
    await placeOrders([api.base], setup, orders);
    await new Promise((r) => setTimeout(r, 500));
  } catch (err) {
    process.kill(worker.pid, 'SIGCONT');
    throw err;
  }
  await admin.connect();
  const withStatements = await statementsAvailable(admin);
  const before = snapshot(worker.pid);
  process.kill(worker.pid, 'SIGCONT');
  const from = receiver.receipts.length;
  if (!(await receiver.waitFor(from + 3 * orders, 120_000))) throw new Error('the drain did not complete');
  const after = snapshot(worker.pid);
  const drained = receiver.receipts.slice(from);
  const times = drained.map((r) => r.at);
  const n = drained.length;
  const postgres = [...after.postgres].reduce((sum, [pid, s]) => sum + s - (before.postgres.get(pid) ?? 0), 0);
  const perDelivery = (ms: number) => Math.round((ms * 1000) / n);
  const tables = await withClient(scratch.url, (c) =>
    c.query(
      "SELECT n_tup_upd::int AS updates, n_tup_hot_upd::int AS hot_updates FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'",
    ),
  );
  const statements = withStatements
    ? (
        await admin.query(
          `
        SELECT calls::int, round(total_exec_time::numeric, 1)::float AS ms,
               round((total_exec_time * 1000 / $1)::numeric, 1)::float AS us_per_delivery,
               left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
        FROM pg_stat_statements WHERE calls > 0 ORDER BY total_exec_time DESC LIMIT 5`,
          [n],
        )
      ).rows
    : 'pg_stat_statements is not loaded (shared_preload_libraries)';
  console.log(
    JSON.stringify(
      {
        deliveries: n,
        deliveries_per_s: Math.round(n / ((Math.max(...times) - Math.min(...times)) / 1000)),
        cpu_us_per_delivery: {
          worker: perDelivery(after.worker - before.worker),
          postgres: perDelivery(postgres),
          receiver: perDelivery(after.receiver - before.receiver),
        },
        webhook_deliveries: tables.rows[0],
        statements,
      },
      null,
      2,
    ),
  );
} finally {
  await admin.end().catch(() => {});
  for (const p of procs.reverse()) await p.stop();
  await scratch.drop();
  await receiver.close();
}
