/**
 * Oversubscribed on-sale: the on-sale rush's performance (capacity 5000, "Front Row"
 * capped at 1000), but demand far above supply. 64 buyers, each with its own seeded
 * PRNG, ask for 1-4 tickets, three times in four of the capped type, and keep trying after
 * refusals until each has been told three times that General has 0 left (the performance
 * is sold out). The capped type sells out early, so most requests after that are
 * refusals. In the same run, the same buyers against a plain-SQL baseline that also
 * refuses: an unlocked availability read first, then the conditional decrements (its
 * lock) for what may fit, the same transaction shape as Marquee's sale.
 */
import pg from 'pg';
import { Pool } from 'undici';
import { createScratchDb, withClient } from '../lib/db.ts';
import { call, startMarquee } from '../lib/marquee.ts';
import { postgresPids, processCpuMs } from '../lib/proc-cpu.ts';
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
  refused: number[];
  ticketsSold: number;
  ticketsAsked: number;
  failures: string[];
}

/** 64 closed-loop buyers against `sell`; the window ends when the last buyer gives up. */
async function runBuyers(sell: (buyer: number, n: number, order: PlannedOrder) => Promise<Answer>) {
  const tally: Tally = { accepted: [], refused: [], ticketsSold: 0, ticketsAsked: 0, failures: [] };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, buyer) => {
      const rand = seededRandom(1000 + buyer);
      let soldOut = 0;
      for (let n = 0; soldOut < SOLD_OUT_SIGHTINGS && tally.failures.length < 20; n++) {
        const order: PlannedOrder = { type: rand() < 0.75 ? 1 : 0, quantity: 1 + Math.floor(rand() * 4) };
        tally.ticketsAsked += order.quantity;
        const t0 = performance.now();
        const answer = await sell(buyer, n, order);
        const ms = performance.now() - t0;
        if ('failed' in answer) tally.failures.push(answer.failed);
        else if (answer.sold) {
          tally.accepted.push(ms);
          tally.ticketsSold += order.quantity;
        } else {
          tally.refused.push(ms);
          if (order.type === 0 && answer.remaining === 0) soldOut++;
        }
      }
    }),
  );
  const durationS = (performance.now() - started) / 1000;
  return { tally, durationS };
}

function figuresOf(tally: Tally, durationS: number) {
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
    accepted_p50_ms: round(percentile(tally.accepted, 50), 2),
    accepted_p95_ms: round(percentile(tally.accepted, 95), 2),
    refused_p50_ms: round(percentile(tally.refused, 50), 2),
    refused_p95_ms: round(percentile(tally.refused, 95), 2),
  };
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
        if (res.statusCode === 201) return { sold: true };
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
      ...figuresOf(run.tally, run.durationS),
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
          `${run.tally.failures.length} failures${run.tally.failures[0] ? `, first: ${run.tally.failures[0]}` : ''}`,
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
    const run = await runBuyers(async (buyer, n, order) => {
      const client = await pool.connect();
      try {
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
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        return { failed: String(err) };
      } finally {
        client.release();
      }
    });
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
        ...figuresOf(run.tally, run.durationS),
        demand_over_supply: round(run.tally.ticketsAsked / capacity, 2),
        postgres_cpu_us_per_request: round(
          ((postgresCpuMs() - pgBefore) * 1000) / (run.tally.accepted.length + run.tally.refused.length),
        ),
      },
      checks: [
        check(
          'baseline: no failure',
          run.tally.failures.length === 0,
          `${run.tally.failures.length} failures${run.tally.failures[0] ? `, first: ${run.tally.failures[0]}` : ''}`,
        ),
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

export async function oversoldScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const capacity = opts.quick ? 1000 : 5000;
  const cap = capacity / 5;
  const scratch = await createScratchDb('oversold');
  try {
    const marquee = await marqueeSide(scratch.url, capacity, cap, opts.cpuProfDir);
    const baseline = await baselineSide(capacity, cap);
    const ratio = marquee.figures.tickets_per_s / baseline.figures.tickets_per_s;
    const latency = marquee.figures.refused_p50_ms / marquee.figures.accepted_p50_ms;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(marquee.figures)) out[`marquee_${k}`] = v;
    for (const [k, v] of Object.entries(baseline.figures)) out[`baseline_${k}`] = v;
    out.ratio_tickets_per_s = round(ratio, 3);
    out.marquee_refused_over_accepted_p50 = round(latency, 3);
    return {
      figures: out,
      checks: [...marquee.checks, ...baseline.checks],
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
      ],
      notes: [
        `capacity ${capacity}, capped type ${cap}; ${CONNECTIONS} buyers, each until told ${SOLD_OUT_SIGHTINGS} times that General is sold out.`,
      ],
    };
  } finally {
    await scratch.drop();
  }
}
