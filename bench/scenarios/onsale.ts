/**
 * On-sale rush: one performance (capacity 5000), two ticket types (one capped at 1000),
 * 64 connections in a closed loop placing cash orders of 1 to 4 tickets until sold out;
 * and, in the same run, the same logical transaction as plain SQL with `pg` (baseline).
 *
 * The order sequence is planned up front (seeded) to sum to exactly the capacity and the
 * cap, so every order is sellable: any 400 is a wrongful refusal and any 5xx a failure.
 * After the rush, a few more orders must all be refused (the oversell guard).
 */
import pg from 'pg';
import { startPgBouncer } from '../../test/helpers/pgbouncer.ts';
import { createScratchDb, withClient } from '../lib/db.ts';
import { countStatus, runLoad } from '../lib/load.ts';
import { call, createEvent, createOrganizerWithKey, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { latencySummary, round, seededRandom } from '../lib/stats.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

export interface PlannedOrder {
  type: 0 | 1;
  quantity: number;
}

/** Orders of 1-4 tickets summing to exactly `capacity`, of which exactly `cap` of type 1. */
export function planOrders(capacity: number, cap: number, seed = 7): PlannedOrder[] {
  const rand = seededRandom(seed);
  let general = capacity - cap;
  let capped = cap;
  const plan: PlannedOrder[] = [];
  while (general + capped > 0) {
    const type: 0 | 1 = rand() < capped / (general + capped) ? 1 : 0;
    const left = type === 1 ? capped : general;
    const quantity = Math.min(left, 1 + Math.floor(rand() * 4));
    if (type === 1) capped -= quantity;
    else general -= quantity;
    plan.push({ type, quantity });
  }
  return plan;
}

interface RushSetup {
  urls: string[];
  key: string;
  performanceId: string;
  typeIds: [string, string];
}

export async function setupRush(proc: MarqueeProcess, capacity: number, cap: number): Promise<RushSetup> {
  const { key } = await createOrganizerWithKey(proc.base);
  const event = await createEvent(proc.base, key, {
    performances: 1,
    capacity,
    ticketTypes: [
      { name: 'General', price_minor: 3500, quantity: null },
      { name: 'Front Row', price_minor: 9000, quantity: cap },
    ],
  });
  return {
    urls: [proc.base],
    key,
    performanceId: event.ticket_types[0]!.prices[0]!.performance_id,
    typeIds: [event.ticket_types[0]!.id, event.ticket_types[1]!.id],
  };
}

interface RushFigures {
  orders: number;
  tickets: number;
  duration_s: number;
  orders_per_s: number;
  tickets_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  status_400: number;
  status_5xx: number;
  other_non_201: number;
  socket_errors: number;
}

/** The rush itself against one or more API base URLs. */
export async function rush(setup: RushSetup, plan: PlannedOrder[], connections = 64): Promise<RushFigures> {
  let i = 0;
  const load = await runLoad({
    urls: setup.urls,
    connections,
    amount: plan.length,
    method: 'POST',
    headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' },
    next: () => {
      const n = i++;
      const order = plan[n]!;
      return {
        path: '/v1/orders',
        body: JSON.stringify({
          items: [
            {
              performance_id: setup.performanceId,
              ticket_type_id: setup.typeIds[order.type],
              quantity: order.quantity,
            },
          ],
          buyer: { first_name: 'Buyer', last_name: `No ${n}`, email: `buyer${n}@example.test` },
          tender: 'cash',
        }),
      };
    },
  });
  const tickets = plan.reduce((s, o) => s + o.quantity, 0);
  return {
    orders: load.requests,
    tickets,
    duration_s: round(load.durationS, 2),
    orders_per_s: round(load.requests / load.durationS),
    tickets_per_s: round(tickets / load.durationS),
    p50_ms: load.p50_ms,
    p95_ms: load.p95_ms,
    p99_ms: load.p99_ms,
    status_400: countStatus(load.statuses, (s) => s === 400),
    status_5xx: countStatus(load.statuses, (s) => s >= 500),
    other_non_201: countStatus(load.statuses, (s) => s !== 201 && s !== 400 && s < 500),
    socket_errors: load.errors,
  };
}

/** Sold counts from the database, availability from the API, and the post-sell-out probe. */
export async function rushChecks(
  databaseUrl: string | undefined,
  base: string,
  setup: RushSetup,
  capacity: number,
  cap: number,
  figures: RushFigures,
) {
  const checks = [
    check('rush: no 400 (every planned order fits)', figures.status_400 === 0, `${figures.status_400} answers 400`),
    check('rush: no 5xx', figures.status_5xx === 0, `${figures.status_5xx} answers 5xx`),
    check(
      'rush: every order answered 201',
      figures.other_non_201 === 0 && figures.socket_errors === 0,
      `${figures.other_non_201} other non-201, ${figures.socket_errors} socket errors`,
    ),
  ];
  // Post-sell-out probe: 8 more single-ticket orders of each type must all be refused.
  let refused = 0;
  for (let n = 0; n < 16; n++) {
    const res = await call(base, 'POST', '/v1/orders', setup.key, {
      items: [{ performance_id: setup.performanceId, ticket_type_id: setup.typeIds[(n % 2) as 0 | 1], quantity: 1 }],
      buyer: { first_name: 'Late', email: 'late@example.test' },
      tender: 'cash',
    });
    if (res.status === 400) refused++;
  }
  checks.push(check('after sell-out: further orders refused with 400', refused === 16, `${refused}/16 refused`));
  if (databaseUrl) {
    const sold = await withClient(databaseUrl, async (c) => {
      const rows = await c.query<{ ticket_type_id: string; n: string }>(
        `SELECT ticket_type_id, count(*) AS n FROM tickets WHERE performance_id = $1 AND status <> 'cancelled' GROUP BY ticket_type_id`,
        [setup.performanceId],
      );
      return new Map(rows.rows.map((r) => [r.ticket_type_id, Number(r.n)]));
    });
    const total = [...sold.values()].reduce((a, b) => a + b, 0);
    checks.push(
      check(`exactly ${capacity} tickets sold (database)`, total === capacity, `${total} tickets in the tickets table`),
    );
    checks.push(
      check(
        `capped type at its cap of ${cap} (database)`,
        sold.get(setup.typeIds[1]) === cap,
        `${sold.get(setup.typeIds[1]) ?? 0} sold`,
      ),
    );
  }
  const availability = await call(base, 'GET', `/v1/performances/${setup.performanceId}/availability`, setup.key);
  const a = availability.body as { performance_remaining: number; ticket_types: { remaining: number }[] };
  const zero =
    availability.status === 200 && a.performance_remaining === 0 && a.ticket_types.every((t) => t.remaining === 0);
  checks.push(check('availability endpoint shows 0 left', zero, JSON.stringify(a)));
  return checks;
}

// ---------------------------------------------------------------------------------------
// Baseline: the same logical transaction in plain SQL, 64 clients, one pg Pool.

export const BASELINE_SCHEMA = `
CREATE TABLE performances (id int PRIMARY KEY, capacity int NOT NULL, sold_count int NOT NULL DEFAULT 0 CHECK (sold_count <= capacity));
CREATE TABLE prices (
  performance_id int NOT NULL REFERENCES performances (id), ticket_type int NOT NULL, price_minor bigint NOT NULL,
  limited_quantity int, sold_count int NOT NULL DEFAULT 0,
  PRIMARY KEY (performance_id, ticket_type), CHECK (limited_quantity IS NULL OR sold_count <= limited_quantity));
CREATE TABLE orders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(), order_no text NOT NULL UNIQUE, status text NOT NULL, tender text NOT NULL,
  buyer_first_name text NOT NULL, buyer_last_name text, buyer_email text NOT NULL, total_minor bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_transactions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(), order_id uuid NOT NULL REFERENCES orders (id), performance_id int NOT NULL REFERENCES performances (id),
  total_minor bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE tickets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(), order_id uuid NOT NULL REFERENCES orders (id),
  order_transaction_id uuid NOT NULL REFERENCES order_transactions (id), performance_id int NOT NULL, ticket_type int NOT NULL,
  ticket_no text NOT NULL UNIQUE, status text NOT NULL, unit_price_minor bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
`;

async function baselineRush(plan: PlannedOrder[], capacity: number, cap: number, connections = 64) {
  const scratch = await createScratchDb('baseline');
  const pool = new pg.Pool({ connectionString: scratch.url, max: connections });
  // pool.end() resolves before its sockets close; DROP DATABASE … FORCE may then end one.
  pool.on('error', () => undefined);
  try {
    await withClient(scratch.url, async (c) => {
      await c.query(BASELINE_SCHEMA);
      await c.query('INSERT INTO performances (id, capacity) VALUES (1, $1)', [capacity]);
      await c.query(
        'INSERT INTO prices (performance_id, ticket_type, price_minor, limited_quantity) VALUES (1, 0, 3500, NULL), (1, 1, 9000, $1)',
        [cap],
      );
    });
    // Open every connection first, as Marquee's pool is warm when the rush starts.
    await Promise.all(Array.from({ length: connections }, async () => (await pool.connect()).release()));
    let next = 0;
    let refused = 0;
    let failed = 0;
    const latencies: number[] = [];
    const started = performance.now();
    const sellOne = async (n: number, order: PlannedOrder) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const perf = await client.query(
          'UPDATE performances SET sold_count = sold_count + $2 WHERE id = $1 AND sold_count + $2 <= capacity RETURNING id',
          [1, order.quantity],
        );
        const price = await client.query<{ price_minor: string }>(
          'UPDATE prices SET sold_count = sold_count + $3 WHERE performance_id = $1 AND ticket_type = $2 AND (limited_quantity IS NULL OR sold_count + $3 <= limited_quantity) RETURNING price_minor',
          [1, order.type, order.quantity],
        );
        if (perf.rowCount !== 1 || price.rowCount !== 1) {
          await client.query('ROLLBACK');
          refused++;
          return;
        }
        const unit = Number(price.rows[0]!.price_minor);
        const orderNo = `B${String(n).padStart(7, '0')}`;
        const o = await client.query<{ id: string }>(
          `INSERT INTO orders (order_no, status, tender, buyer_first_name, buyer_last_name, buyer_email, total_minor) VALUES ($1, 'placed', 'cash', 'Buyer', $2, $3, $4) RETURNING id`,
          [orderNo, `No ${n}`, `buyer${n}@example.test`, unit * order.quantity],
        );
        const t = await client.query<{ id: string }>(
          'INSERT INTO order_transactions (order_id, performance_id, total_minor) VALUES ($1, 1, $2) RETURNING id',
          [o.rows[0]!.id, unit * order.quantity],
        );
        await client.query(
          `INSERT INTO tickets (order_id, order_transaction_id, performance_id, ticket_type, ticket_no, status, unit_price_minor)
           SELECT $1, $2, 1, $3, $4 || '-' || lpad(g::text, 3, '0'), 'purchased', $5 FROM generate_series(1, $6) AS g`,
          [o.rows[0]!.id, t.rows[0]!.id, order.type, orderNo, unit, order.quantity],
        );
        await client.query('COMMIT');
      } catch {
        failed++;
        await client.query('ROLLBACK').catch(() => undefined);
      } finally {
        client.release();
      }
    };
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < plan.length) {
          const n = next++;
          const t0 = performance.now();
          await sellOne(n, plan[n]!);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const durationS = (performance.now() - started) / 1000;
    const sold = await withClient(scratch.url, async (c) =>
      Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM tickets')).rows[0]!.n),
    );
    const tickets = plan.reduce((s, o) => s + o.quantity, 0);
    return {
      figures: {
        orders_per_s: round(plan.length / durationS),
        tickets_per_s: round(tickets / durationS),
        duration_s: round(durationS, 2),
        ...latencySummary(latencies),
      },
      checks: [
        check(
          'baseline: every order sold, none refused or failed',
          refused === 0 && failed === 0,
          `${refused} refused, ${failed} failed`,
        ),
        check(`baseline: exactly ${capacity} tickets sold`, sold === capacity, `${sold} tickets`),
      ],
    };
  } finally {
    await pool.end();
    await new Promise((r) => setTimeout(r, 250));
    await scratch.drop();
  }
}

/**
 * The same rush with Marquee behind Debian's PgBouncer in transaction pooling mode
 * (docs/deploy.md, "PgBouncer"): as many server connections as Marquee's own pool has
 * (DATABASE_POOL_SIZE, 10), DATABASE_DIRECT_URL for migrations. What the pooler costs a
 * sale: one more hop, no named prepared statements, the timeouts sent per transaction.
 */
async function pgbouncerRush(plan: PlannedOrder[], capacity: number, cap: number) {
  const scratch = await createScratchDb('onsale_pgbouncer');
  const pgbouncer = await startPgBouncer({ poolSize: 10 });
  const proc = await startMarquee({
    role: 'api',
    databaseUrl: pgbouncer.through(scratch.url),
    env: { DATABASE_DIRECT_URL: scratch.url },
  });
  try {
    const setup = await setupRush(proc, capacity, cap);
    const figures = await rush(setup, plan);
    const checks = await rushChecks(scratch.url, proc.base, setup, capacity, cap, figures);
    return { figures, checks: checks.map((c) => ({ ...c, name: `through PgBouncer: ${c.name}` })) };
  } finally {
    await proc.stop();
    await pgbouncer.stop();
    await scratch.drop();
  }
}

export async function onSaleScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const capacity = opts.quick ? 1000 : 5000;
  const cap = capacity / 5;
  const plan = planOrders(capacity, cap);
  const scratch = await createScratchDb('onsale');
  // The sale path alone, as an on-sale is deployed (README, Configuration: ROLE lets API nodes and
  // workers scale apart): the baseline renders no e-mails either. The scale-out scenario
  // runs the same rush with workers beside the API.
  const proc = await startMarquee({
    role: 'api',
    databaseUrl: scratch.url,
    ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
  });
  try {
    const setup = await setupRush(proc, capacity, cap);
    const figures = await rush(setup, plan);
    const checks = await rushChecks(scratch.url, proc.base, setup, capacity, cap, figures);
    await proc.stop();
    const pooled = await pgbouncerRush(plan, capacity, cap);
    const baseline = await baselineRush(plan, capacity, cap);
    const ratio = figures.tickets_per_s / baseline.figures.tickets_per_s;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(figures)) out[`marquee_${k}`] = v;
    for (const [k, v] of Object.entries(pooled.figures)) out[`pgbouncer_${k}`] = v;
    for (const [k, v] of Object.entries(baseline.figures)) out[`baseline_${k}`] = v;
    out.ratio_tickets_per_s = round(ratio, 3);
    out.pgbouncer_vs_direct_tickets_per_s = round(pooled.figures.tickets_per_s / figures.tickets_per_s, 3);
    return {
      figures: out,
      checks: [...checks, ...pooled.checks, ...baseline.checks],
      goals: [
        {
          name: 'on-sale: Marquee tickets/s ÷ plain-SQL baseline tickets/s',
          ratio: round(ratio, 3),
          bound: 0.5,
          kind: 'min',
        },
      ],
      notes: [`${plan.length} orders planned (seeded), ${capacity} tickets, capped type ${cap}.`],
    };
  } finally {
    await proc.stop();
    await scratch.drop();
  }
}
