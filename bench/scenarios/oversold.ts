/**
 * Oversubscribed on-sale: one performance (capacity 20,000, "Front Row" capped at 3,000;
 * quick: 2,000 / 300), demand far above supply. 64 buyers, each with its own seeded PRNG,
 * ask for 1-4 tickets, three times in four of the capped type, and keep trying after
 * refusals until each has been told three times that General has 0 left. The same buyers
 * meet three sellers in turn, each on a fresh database: Marquee; the plain-SQL baseline
 * that writes what Marquee writes (`baselineSide`); and the lean plain-SQL sale, the least
 * a correct sale can do: BEGIN, conditional counter updates, the order, its tickets in one
 * statement, COMMIT, every statement a named prepared one (exact definition: bench/README.md,
 * the oversold row). The figure that counts is tickets/s in the selling phase: from the
 * first request to the last 201.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Pool } from 'undici';
import { createScratchDb, withClient } from '../lib/db.ts';
import { call, startMarquee } from '../lib/marquee.ts';
import { postgresPids, processCpuMs } from '../lib/proc-cpu.ts';
import { settle } from '../lib/settle.ts';
import { percentile, round, seededRandom } from '../lib/stats.ts';
import { BASELINE_SCHEMA, setupRush, type PlannedOrder } from './onsale.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const CONNECTIONS = 64;
/** A buyer stops after being told this many times that the uncapped type has 0 left. */
const SOLD_OUT_SIGHTINGS = 3;

/** What a seller answered: sold, or refused with what remains of the asked type. */
type Answer = { sold: true } | { sold: false; remaining: number } | { failed: string };

interface Tally {
  accepted: number[];
  /** performance.now() when the last 201 (or sale) was answered: the end of the selling phase. */
  lastSoldAt: number;
  refused: number[];
  ticketsSold: number;
  ticketsAsked: number;
  failures: string[];
}

/**
 * 64 closed-loop buyers against `sell`; the window ends when the last buyer gives up, the
 * selling phase when the last sale was answered (after it only refusals remain).
 */
async function runBuyers(sell: (buyer: number, n: number, order: PlannedOrder) => Promise<Answer>) {
  const started = performance.now();
  const tally: Tally = {
    accepted: [],
    lastSoldAt: started,
    refused: [],
    ticketsSold: 0,
    ticketsAsked: 0,
    failures: [],
  };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, buyer) => {
      const rand = seededRandom(1000 + buyer);
      let soldOut = 0;
      for (let n = 0; soldOut < SOLD_OUT_SIGHTINGS && tally.failures.length < 20; n++) {
        const order: PlannedOrder = { type: rand() < 0.75 ? 1 : 0, quantity: 1 + Math.floor(rand() * 4) };
        tally.ticketsAsked += order.quantity;
        const t0 = performance.now();
        const answer = await sell(buyer, n, order);
        const t1 = performance.now();
        const ms = t1 - t0;
        if ('failed' in answer) tally.failures.push(answer.failed);
        else if (answer.sold) {
          tally.accepted.push(ms);
          tally.lastSoldAt = Math.max(tally.lastSoldAt, t1);
          tally.ticketsSold += order.quantity;
        } else {
          tally.refused.push(ms);
          if (order.type === 0 && answer.remaining === 0) soldOut++;
        }
      }
    }),
  );
  const durationS = (performance.now() - started) / 1000;
  const sellingS = (tally.lastSoldAt - started) / 1000;
  return { tally, durationS, sellingS };
}

function figuresOf({ tally, durationS, sellingS }: { tally: Tally; durationS: number; sellingS: number }) {
  const requests = tally.accepted.length + tally.refused.length;
  return {
    requests,
    accepted: tally.accepted.length,
    refused: tally.refused.length,
    tickets_sold: tally.ticketsSold,
    demand_over_supply: 0,
    duration_s: round(durationS, 2),
    tickets_per_s: round(tally.ticketsSold / durationS),
    requests_per_s: round(requests / durationS),
    // The selling phase: first request to last sale; the figure the lean ratio compares.
    selling_s: round(sellingS, 2),
    selling_tickets_per_s: round(tally.ticketsSold / sellingS),
    accepted_p50_ms: round(percentile(tally.accepted, 50), 2),
    accepted_p95_ms: round(percentile(tally.accepted, 95), 2),
    refused_p50_ms: round(percentile(tally.refused, 50), 2),
    refused_p95_ms: round(percentile(tally.refused, 95), 2),
  };
}

/** How many sales failed, and the first failure. */
function failuresOf(tally: Tally): string {
  return `${tally.failures.length} failures${tally.failures[0] ? `, first: ${tally.failures[0]}` : ''}`;
}

/** A plain-SQL seller's check: no sale failed. */
function noFailure(seller: string, tally: Tally) {
  return check(`${seller}: no failure`, tally.failures.length === 0, failuresOf(tally));
}

const DETAIL =
  /^Not enough tickets left: \d+ (?:"[^"]*"|tickets of .*) requested, (\d+) remaining for this performance\.$/;

async function marqueeSide(databaseUrl: string, capacity: number, cap: number, cpuProfDir?: string) {
  const proc = await startMarquee({ role: 'api', databaseUrl, ...(cpuProfDir ? { cpuProfDir } : {}) });
  try {
    const setup = await setupRush(proc, capacity, cap);
    const pool = new Pool(proc.base, { connections: CONNECTIONS, pipelining: 1 });
    const headers = { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' };
    let badDetails = 0;
    let shortTickets = 0;
    let firstShort = '';
    const cpuBefore = { api: processCpuMs(proc.pid), pg: postgresCpuMs() };
    const run = await runBuyers(async (buyer, n, order) => {
      try {
        const res = await pool.request({
          path: '/v1/orders',
          method: 'POST',
          headers,
          body: JSON.stringify({
            items: [
              {
                performance_id: setup.performanceId,
                ticket_type_id: setup.typeIds[order.type],
                quantity: order.quantity,
              },
            ],
            buyer: { first_name: 'Buyer', last_name: `No ${buyer}-${n}`, email: `buyer${buyer}.${n}@example.test` },
            tender: 'cash',
          }),
        });
        const text = await res.body.text();
        if (res.statusCode === 201) {
          // The 201 body (OrderDetail) carries the tickets in each transaction's `items`.
          const body = JSON.parse(text) as { transactions?: { items?: unknown[] }[] };
          const count = Array.isArray(body.transactions)
            ? body.transactions.reduce((sum, t) => sum + (Array.isArray(t.items) ? t.items.length : 0), 0)
            : -1;
          if (count !== order.quantity) {
            shortTickets++;
            firstShort ||= `${count} tickets for ${order.quantity} asked`;
          }
          return { sold: true };
        }
        const match = res.statusCode === 400 ? DETAIL.exec((JSON.parse(text) as { detail: string }).detail) : null;
        if (!match) {
          badDetails++;
          return { failed: `${res.statusCode} ${text.slice(0, 200)}` };
        }
        return { sold: false, remaining: Number(match[1]) };
      } catch (err) {
        return { failed: String(err) };
      }
    });
    const cpu = { api: processCpuMs(proc.pid) - cpuBefore.api, pg: postgresCpuMs() - cpuBefore.pg };
    await pool.close();
    const sold = await withClient(databaseUrl, async (c) => {
      const rows = await c.query<{ ticket_type_id: string; n: string }>(
        `SELECT ticket_type_id, count(*) AS n FROM tickets WHERE performance_id = $1 GROUP BY ticket_type_id`,
        [setup.performanceId],
      );
      return new Map(rows.rows.map((r) => [r.ticket_type_id, Number(r.n)]));
    });
    const total = [...sold.values()].reduce((a, b) => a + b, 0);
    const availability = await call(
      proc.base,
      'GET',
      `/v1/performances/${setup.performanceId}/availability`,
      setup.key,
    );
    const a = availability.body as { performance_remaining: number; ticket_types: { remaining: number }[] };
    const figures = {
      ...figuresOf(run),
      demand_over_supply: round(run.tally.ticketsAsked / capacity, 2),
      // Where the CPU of the rush went, per request (accepted and refused alike).
      api_cpu_us_per_request: round((cpu.api * 1000) / (run.tally.accepted.length + run.tally.refused.length)),
      postgres_cpu_us_per_request: round((cpu.pg * 1000) / (run.tally.accepted.length + run.tally.refused.length)),
    };
    return {
      figures,
      checks: [
        check(
          'oversold: every answer 201 or a well-formed 400 (no 5xx, no socket error)',
          run.tally.failures.length === 0 && badDetails === 0,
          failuresOf(run.tally),
        ),
        check(
          `oversold: demand at least 3 × supply`,
          figures.demand_over_supply >= 3,
          `${run.tally.ticketsAsked} tickets asked for ${capacity}`,
        ),
        check(
          `oversold: exactly ${capacity} tickets sold (database)`,
          total === capacity && run.tally.ticketsSold === capacity,
          `${total} ticket rows, ${run.tally.ticketsSold} in 201s`,
        ),
        check(
          `oversold: capped type at its cap of ${cap} (database)`,
          sold.get(setup.typeIds[1]) === cap,
          `${sold.get(setup.typeIds[1]) ?? 0} sold`,
        ),
        check(
          'oversold: every 201 carries its tickets (as many as asked)',
          shortTickets === 0,
          `${shortTickets} of ${run.tally.accepted.length} 201s differ${firstShort ? `, first: ${firstShort}` : ''}`,
        ),
        check(
          'oversold: availability endpoint shows 0 left',
          availability.status === 200 &&
            a.performance_remaining === 0 &&
            a.ticket_types.every((t) => t.remaining === 0),
          JSON.stringify(a),
        ),
      ],
    };
  } finally {
    await proc.stop();
  }
}

function postgresCpuMs(): number {
  return postgresPids().reduce((sum, pid) => sum + processCpuMs(pid), 0);
}

/**
 * The baseline seller: an unlocked read of what remains of the type (autocommit, as
 * Marquee's step-1 read), a refusal if the order cannot fit; otherwise BEGIN, the
 * conditional decrements (the lock; a refusal there rolls back and reads what remains
 * again, for the buyer's answer), the order, its transaction and tickets, COMMIT.
 */
/** One sale on a client of the pool: an error rolls its transaction back and is the buyer's failure. */
async function onClient(pool: pg.Pool, sell: (client: pg.PoolClient) => Promise<Answer>): Promise<Answer> {
  const client = await pool.connect();
  try {
    return await sell(client);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    return { failed: String(err) };
  } finally {
    client.release();
  }
}

async function baselineSide(capacity: number, cap: number) {
  const scratch = await createScratchDb('oversold_baseline');
  const pool = new pg.Pool({ connectionString: scratch.url, max: CONNECTIONS });
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
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => (await pool.connect()).release()));
    const remainingOf = async (client: pg.PoolClient, type: number) => {
      const r = await client.query<{ remaining: number; price_minor: string }>(
        `SELECT greatest(0, least(p.capacity - p.sold_count, coalesce(pr.limited_quantity - pr.sold_count, p.capacity - p.sold_count)))::int AS remaining,
                pr.price_minor
         FROM performances p JOIN prices pr ON pr.performance_id = p.id WHERE p.id = 1 AND pr.ticket_type = $1`,
        [type],
      );
      return r.rows[0]!;
    };
    const pgBefore = postgresCpuMs();
    const run = await runBuyers((buyer, n, order) =>
      onClient(pool, async (client) => {
        const early = await remainingOf(client, order.type);
        if (order.quantity > early.remaining) return { sold: false, remaining: early.remaining };
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
          return { sold: false, remaining: (await remainingOf(client, order.type)).remaining };
        }
        const unit = Number(price.rows[0]!.price_minor);
        const orderNo = `B${buyer}-${n}`;
        const o = await client.query<{ id: string }>(
          `INSERT INTO orders (order_no, status, tender, buyer_first_name, buyer_last_name, buyer_email, total_minor) VALUES ($1, 'placed', 'cash', 'Buyer', $2, $3, $4) RETURNING id`,
          [orderNo, `No ${buyer}-${n}`, `buyer${buyer}.${n}@example.test`, unit * order.quantity],
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
        return { sold: true };
      }),
    );
    const sold = await withClient(
      scratch.url,
      async (c) =>
        (
          await c.query<{ type: number; n: string }>(
            'SELECT ticket_type AS type, count(*) AS n FROM tickets GROUP BY 1',
          )
        ).rows,
    );
    const total = sold.reduce((s, r) => s + Number(r.n), 0);
    const capped = Number(sold.find((r) => r.type === 1)?.n ?? 0);
    return {
      figures: {
        ...figuresOf(run),
        demand_over_supply: round(run.tally.ticketsAsked / capacity, 2),
        postgres_cpu_us_per_request: round(
          ((postgresCpuMs() - pgBefore) * 1000) / (run.tally.accepted.length + run.tally.refused.length),
        ),
      },
      checks: [
        noFailure('baseline', run.tally),
        check(
          `baseline: exactly ${capacity} tickets sold, ${cap} capped`,
          total === capacity && capped === cap,
          `${total} tickets, ${capped} capped`,
        ),
      ],
    };
  } finally {
    await pool.end();
    await new Promise((r) => setTimeout(r, 250));
    await scratch.drop();
  }
}

const LEAN_SCHEMA = `
CREATE TABLE performance (id uuid PRIMARY KEY, capacity int NOT NULL, sold int NOT NULL DEFAULT 0);
CREATE TABLE ticket_type (
  id uuid PRIMARY KEY, performance_id uuid NOT NULL, name text NOT NULL, price_minor bigint NOT NULL, cap int,
  sold int NOT NULL DEFAULT 0);
CREATE TABLE orders (
  id uuid PRIMARY KEY, order_no bigint GENERATED ALWAYS AS IDENTITY, status text NOT NULL, buyer_email text NOT NULL,
  currency text NOT NULL, total_minor bigint NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX orders_created_idx ON orders (created_at DESC, id DESC);
CREATE TABLE tickets (
  id uuid PRIMARY KEY, order_id uuid NOT NULL, performance_id uuid NOT NULL, ticket_type_id uuid NOT NULL,
  ticket_no text NOT NULL, serial_no text NOT NULL UNIQUE, status text NOT NULL, unit_price_minor bigint NOT NULL,
  created_at timestamptz NOT NULL);
CREATE INDEX tickets_order_idx ON tickets (order_id);
CREATE INDEX tickets_performance_idx ON tickets (performance_id);
`;

/** The lean sale's statements, each a named prepared statement. */
const LEAN = {
  begin: { name: 'lean_begin', text: 'BEGIN' },
  commit: { name: 'lean_commit', text: 'COMMIT' },
  rollback: { name: 'lean_rollback', text: 'ROLLBACK' },
  takeType: {
    name: 'lean_take_type',
    text: 'UPDATE ticket_type SET sold = sold + $2 WHERE id = $1 AND sold + $2 <= cap',
  },
  takePerformance: {
    name: 'lean_take_performance',
    text: 'UPDATE performance SET sold = sold + $2 WHERE id = $1 AND sold + $2 <= capacity',
  },
  insertOrder: {
    name: 'lean_insert_order',
    text: `INSERT INTO orders (id, status, buyer_email, currency, total_minor, created_at)
           VALUES ($1, 'placed', $2, 'EUR', $3, now()) RETURNING order_no`,
  },
  insertTickets: {
    name: 'lean_insert_tickets',
    text: `INSERT INTO tickets (id, order_id, performance_id, ticket_type_id, ticket_no, serial_no, status, unit_price_minor, created_at)
           SELECT t.id, $1, $2, $3, t.ticket_no, t.serial_no, 'issued', $4, now()
           FROM unnest($5::uuid[], $6::text[], $7::text[]) AS t (id, ticket_no, serial_no)`,
  },
  remaining: {
    name: 'lean_remaining',
    text: `SELECT greatest(0, least(p.capacity - p.sold, coalesce(tt.cap - tt.sold, p.capacity - p.sold)))::int AS remaining
           FROM ticket_type tt JOIN performance p ON p.id = tt.performance_id WHERE tt.id = $1`,
  },
};

/**
 * The lean plain-SQL seller (bench/README.md, the oversold row): no read before the
 * sale; BEGIN, the capped type's conditional update (capped type only), the performance's,
 * the order, its tickets in one statement, COMMIT. An update that changes no row rolls back,
 * and one read tells the buyer what remains of the type.
 */
async function leanSide(capacity: number, cap: number) {
  const scratch = await createScratchDb('oversold_lean');
  const pool = new pg.Pool({ connectionString: scratch.url, max: CONNECTIONS, idleTimeoutMillis: 0 });
  pool.on('error', () => undefined);
  const performanceId = randomUUID();
  const types = [
    { id: randomUUID(), name: 'General', price: 3500, cap: null },
    { id: randomUUID(), name: 'Front Row', price: 9000, cap },
  ] as const;
  try {
    await withClient(scratch.url, async (c) => {
      await c.query(LEAN_SCHEMA);
      await c.query('INSERT INTO performance (id, capacity) VALUES ($1, $2)', [performanceId, capacity]);
      for (const t of types)
        await c.query(
          'INSERT INTO ticket_type (id, performance_id, name, price_minor, cap) VALUES ($1, $2, $3, $4, $5)',
          [t.id, performanceId, t.name, t.price, t.cap],
        );
    });
    // Every connection opened before the rush: all 64 held at once, then released.
    const opened = await Promise.all(Array.from({ length: CONNECTIONS }, () => pool.connect()));
    for (const c of opened) c.release();
    const connectionsOpened = pool.totalCount;
    const pgBefore = postgresCpuMs();
    const run = await runBuyers((buyer, n, order) =>
      onClient(pool, async (client) => {
        const type = types[order.type];
        await client.query(LEAN.begin);
        const taken =
          (type.cap === null ||
            (await client.query({ ...LEAN.takeType, values: [type.id, order.quantity] })).rowCount === 1) &&
          (await client.query({ ...LEAN.takePerformance, values: [performanceId, order.quantity] })).rowCount === 1;
        if (!taken) {
          await client.query(LEAN.rollback);
          const r = await client.query<{ remaining: number }>({ ...LEAN.remaining, values: [type.id] });
          return { sold: false, remaining: r.rows[0]!.remaining };
        }
        const orderId = randomUUID();
        const o = await client.query<{ order_no: string }>({
          ...LEAN.insertOrder,
          values: [orderId, `buyer${buyer}.${n}@example.test`, type.price * order.quantity],
        });
        const orderNo = o.rows[0]!.order_no;
        const ids: string[] = [];
        const ticketNos: string[] = [];
        const serials: string[] = [];
        for (let i = 1; i <= order.quantity; i++) {
          ids.push(randomUUID());
          ticketNos.push(`${orderNo}-${String(i).padStart(3, '0')}`);
          serials.push(randomBytes(10).toString('hex'));
        }
        await client.query({
          ...LEAN.insertTickets,
          values: [orderId, performanceId, type.id, type.price, ids, ticketNos, serials],
        });
        await client.query(LEAN.commit);
        return { sold: true };
      }),
    );
    const pgCpu = postgresCpuMs() - pgBefore;
    const stored = await withClient(scratch.url, async (c) => {
      const tickets = await c.query<{ ticket_type_id: string; n: string }>(
        'SELECT ticket_type_id, count(*) AS n FROM tickets GROUP BY 1',
      );
      const counters = await c.query<{ performance_sold: number; capped_sold: number }>(
        'SELECT p.sold AS performance_sold, tt.sold AS capped_sold FROM performance p JOIN ticket_type tt ON tt.performance_id = p.id WHERE tt.id = $1',
        [types[1].id],
      );
      const byType = new Map(tickets.rows.map((r) => [r.ticket_type_id, Number(r.n)]));
      return {
        total: [...byType.values()].reduce((a, b) => a + b, 0),
        capped: byType.get(types[1].id) ?? 0,
        ...counters.rows[0]!,
      };
    });
    return {
      figures: {
        ...figuresOf(run),
        demand_over_supply: round(run.tally.ticketsAsked / capacity, 2),
        postgres_cpu_us_per_request: round((pgCpu * 1000) / (run.tally.accepted.length + run.tally.refused.length)),
      },
      checks: [
        noFailure('lean', run.tally),
        check(
          `lean: ${CONNECTIONS} connections opened before the rush`,
          connectionsOpened === CONNECTIONS,
          `${connectionsOpened} open`,
        ),
        check(
          `lean: exactly ${capacity} tickets sold, ${cap} capped (database)`,
          stored.total === capacity &&
            stored.performance_sold === capacity &&
            stored.capped === cap &&
            stored.capped_sold === cap &&
            run.tally.ticketsSold === capacity,
          `${stored.total} ticket rows (${stored.capped} capped), counters ${stored.performance_sold} / ${stored.capped_sold}, ${run.tally.ticketsSold} in answers`,
        ),
      ],
    };
  } finally {
    await pool.end();
    await new Promise((r) => setTimeout(r, 250));
    await scratch.drop();
  }
}

export async function oversoldScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const capacity = opts.quick ? 2000 : 20_000;
  const cap = opts.quick ? 300 : 3000;
  const scratch = await createScratchDb('oversold');
  try {
    // Each seller starts from a checkpointed server and an idle machine, as the run does:
    // the WAL and dirty buffers of the seller before are not flushed during the next one.
    const marquee = await marqueeSide(scratch.url, capacity, cap, opts.cpuProfDir);
    await settle();
    const baseline = await baselineSide(capacity, cap);
    await settle();
    const lean = await leanSide(capacity, cap);
    const ratio = marquee.figures.tickets_per_s / baseline.figures.tickets_per_s;
    const latency = marquee.figures.refused_p50_ms / marquee.figures.accepted_p50_ms;
    const vsLean = marquee.figures.selling_tickets_per_s / lean.figures.selling_tickets_per_s;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(marquee.figures)) out[`marquee_${k}`] = v;
    for (const [k, v] of Object.entries(baseline.figures)) out[`baseline_${k}`] = v;
    for (const [k, v] of Object.entries(lean.figures)) out[`lean_${k}`] = v;
    out.ratio_tickets_per_s = round(ratio, 3);
    out.ratio_selling_vs_lean = round(vsLean, 3);
    out.marquee_refused_over_accepted_p50 = round(latency, 3);
    return {
      figures: out,
      checks: [...marquee.checks, ...baseline.checks, ...lean.checks],
      goals: [
        {
          name: 'oversold: Marquee tickets/s ÷ plain-SQL baseline tickets/s',
          ratio: round(ratio, 3),
          bound: 0.8,
          kind: 'min',
        },
        {
          name: 'oversold: Marquee refusal p50 ÷ accepted p50 (must stay below 1)',
          ratio: round(latency, 3),
          bound: 0.999,
          kind: 'max',
        },
        {
          name: 'oversold: Marquee selling-phase tickets/s ÷ lean plain-SQL tickets/s',
          ratio: round(vsLean, 3),
          bound: 1.2,
          kind: 'min',
        },
      ],
      notes: [
        `capacity ${capacity}, capped type ${cap}; ${CONNECTIONS} buyers, each until told ${SOLD_OUT_SIGHTINGS} times that General is sold out; sellers in turn: Marquee, the baseline, the lean baseline.`,
        'selling phase: from the first request to the last 201; whole window: to the last refusal.',
      ],
    };
  } finally {
    await scratch.drop();
  }
}
