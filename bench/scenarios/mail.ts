/**
 * E-mail: the e-tickets of orders to a local SMTP sink, against this tree and, in the same
 * run, against a baseline commit (BENCH_MAIL_BASELINE, default the last commit before
 * mail rendering moved off the event loop).
 *
 * - `mail` (PostgreSQL): N one-ticket orders and one 1,000-ticket order (20 items × 50,
 *   the largest order the API takes); e-mails/s and e-tickets/s from the first order to
 *   the last mail, the big order's e-ticket mail time, the mail size per ticket, and the
 *   ticket.issued lag (domain event time − order time) from the database. A second
 *   baseline (BENCH_MAIL_DOCUMENTS_BASELINE) is the tree before the e-ticket mail carried
 *   its PDF and calendar files.
 * - `mailload` (PGlite and PostgreSQL): one 1,000-ticket order, then GET /v1/events/{id}
 *   one request after another on the same process until its e-ticket mail has arrived;
 *   GET p99/max and the process's event-loop delay (monitorEventLoopDelay, preloaded
 *   probe) over that window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { checkoutBaseline, type BaselineTree } from '../lib/baseline-tree.ts';
import { createScratchDb, withClient, type ScratchDb } from '../lib/db.ts';
import { runLoad } from '../lib/load.ts';
import {
  call,
  createEvent,
  createOrganizerWithKey,
  mustCall,
  startMarquee,
  type EventShape,
  type MarqueeProcess,
} from '../lib/marquee.ts';
import { LOOP_DELAY_PROBE, loopDelay, signalWindow } from '../lib/loop-delay.ts';
import { startSmtpSink, type SmtpSink } from '../lib/smtp-sink.ts';
import { latencySummary, percentile, round } from '../lib/stats.ts';
import { check, type Check, type Goal, type ScenarioOptions, type ScenarioResult } from './types.ts';

const BASELINE_REF = process.env.BENCH_MAIL_BASELINE ?? 'a10c21b';
/**
 * The tree before e-ticket mails carried documents (PDF tickets, calendar files): the
 * `mail` scenario's second baseline, against which what the documents cost is measured.
 */
const DOCUMENTS_BASELINE_REF = process.env.BENCH_MAIL_DOCUMENTS_BASELINE ?? '871aa31';
const BIG_ITEMS = 20;
const PER_ITEM_MAX = 50;

interface Stack {
  proc: MarqueeProcess;
  sink: SmtpSink;
  scratch?: ScratchDb;
  close(): Promise<void>;
}

async function startStack(
  engine: 'pglite' | 'postgresql',
  root: string | undefined,
  cpuProfDir?: string,
): Promise<Stack> {
  const sink = await startSmtpSink();
  const scratch = engine === 'postgresql' ? await createScratchDb('mail') : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'marquee-bench-mail-'));
  const proc = await startMarquee({
    role: 'all',
    dataDir,
    ...(scratch ? { databaseUrl: scratch.url } : {}),
    ...(root ? { root } : {}),
    preload: [LOOP_DELAY_PROBE],
    ...(cpuProfDir ? { cpuProfDir } : {}),
    env: { SMTP_URL: sink.url },
  });
  return {
    proc,
    sink,
    ...(scratch ? { scratch } : {}),
    async close() {
      await proc.stop();
      await sink.close();
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** An event with one performance and 20 ticket types, so one order can hold 20 × 50 tickets. */
async function bigOrderEvent(proc: MarqueeProcess, key: string, capacity: number): Promise<EventShape> {
  return createEvent(proc.base, key, {
    performances: 1,
    capacity,
    ticketTypes: Array.from({ length: BIG_ITEMS }, (_, i) => ({
      name: `Block ${i + 1}`,
      price_minor: 2500,
      quantity: null,
    })),
  });
}

async function placeBigOrder(
  proc: MarqueeProcess,
  key: string,
  event: EventShape,
  tickets: number,
): Promise<{ orderNo: string; postedAt: number }> {
  const performanceId = event.ticket_types[0]!.prices[0]!.performance_id;
  const items = [];
  for (let left = tickets, i = 0; left > 0; left -= PER_ITEM_MAX, i++) {
    items.push({
      performance_id: performanceId,
      ticket_type_id: event.ticket_types[i]!.id,
      quantity: Math.min(PER_ITEM_MAX, left),
    });
  }
  const order = await mustCall<{ order_no: string }>(proc.base, 'POST', '/v1/orders', key, {
    items,
    buyer: { first_name: 'Guest', email: 'guest@example.test' },
    tender: 'cash',
  });
  return { orderNo: order.order_no, postedAt: performance.now() };
}

// ---------------------------------------------------------------------------------------
// mailload
// ---------------------------------------------------------------------------------------

async function mailLoadRun(
  engine: 'pglite' | 'postgresql',
  root: string | undefined,
  tickets: number,
  cpuProfDir?: string,
) {
  const stack = await startStack(engine, root, cpuProfDir);
  try {
    return await measureMailLoad(stack, tickets);
  } catch (err) {
    throw new Error(
      `mailload (${engine}, ${root ? 'before' : 'after'}): ${err instanceof Error ? err.stack : String(err)} [${stack.proc.base} step ${step}]\n${stack.proc.output().slice(-3000)}`,
      { cause: err },
    );
  } finally {
    await stack.close();
  }
}

let step = '';
async function measureMailLoad(stack: Stack, tickets: number) {
  {
    const { proc, sink } = stack;
    step = 'setup';
    const { key } = await createOrganizerWithKey(proc.base);
    const event = await bigOrderEvent(proc, key, tickets);
    const path = `/v1/events/${event.id}`;
    step = 'warm';
    for (let i = 0; i < 200; i++) await call(proc.base, 'GET', path, key); // warm
    await signalWindow(proc); // an idle window first: this machine's own noise
    const idle: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await call(proc.base, 'GET', path, key);
      idle.push(performance.now() - t);
    }
    step = 'signal';
    await signalWindow(proc); // the measured window starts here
    const idleDelay = loopDelay(proc);
    step = 'order';
    const { orderNo, postedAt } = await placeBigOrder(proc, key, event, tickets);
    // The window starts once the order is placed: on PGlite the sale's own SQL runs on
    // this event loop, and what is measured here is the mail.
    await signalWindow(proc);
    const latencies: number[] = [];
    let failedGets = 0;
    while (!sink.mails.some((m) => m.subject.includes(`Your tickets for order ${orderNo}`))) {
      if (performance.now() - postedAt > 180_000) throw new Error(`mailload: no e-ticket mail after 180 s`);
      const t = performance.now();
      // A request the server dropped (its timeouts fire late after a long block) counts
      // as failed, with the time it took.
      const status = await call(proc.base, 'GET', path, key).then(
        (res) => res.status,
        () => 0,
      );
      latencies.push(performance.now() - t);
      if (status !== 200) failedGets++;
    }
    step = 'after';
    const mailMs =
      sink.mails.find((m) => m.subject.includes(orderNo) && m.subject.startsWith('Your tickets'))!.at - postedAt;
    await signalWindow(proc);
    const delay = loopDelay(proc);
    return {
      idle_p99_ms: latencySummary(idle).p99_ms,
      idle_loop_delay_p99_ms: idleDelay.p99_ms,
      get_p99_ms: latencySummary(latencies).p99_ms,
      get_max_ms: round(Math.max(...latencies), 1),
      gets: latencies.length,
      loop_delay_p99_ms: delay.p99_ms,
      loop_delay_max_ms: delay.max_ms,
      eticket_mail_ms: round(mailMs),
      failed_gets: failedGets,
    };
  }
}

export async function mailLoadScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const tickets = opts.quick ? 200 : BIG_ITEMS * PER_ITEM_MAX;
  const baseline = checkoutBaseline(BASELINE_REF);
  const figures: Record<string, number> = {};
  const checks: Check[] = [];
  const goals: Goal[] = [];
  try {
    for (const engine of ['pglite', 'postgresql'] as const) {
      for (const [label, root] of [
        ['before', baseline.root],
        ['after', undefined],
      ] as const) {
        const r = await mailLoadRun(engine, root, tickets, root ? undefined : opts.cpuProfDir);
        for (const [k, v] of Object.entries(r)) figures[`${engine}_${label}_${k}`] = v;
        if (label === 'after')
          checks.push(
            check(`${engine}: every GET answered 200`, r.failed_gets === 0, `${r.failed_gets} of ${r.gets} failed`),
          );
      }
      goals.push({
        name: `${engine}: GET p99 (ms) while a ${tickets}-ticket mail renders and sends`,
        ratio: figures[`${engine}_after_get_p99_ms`]!,
        bound: 50,
        kind: 'max',
      });
      goals.push({
        name: `${engine}: event-loop delay p99 (ms) meanwhile`,
        ratio: figures[`${engine}_after_loop_delay_p99_ms`]!,
        bound: 20,
        kind: 'max',
      });
    }
  } finally {
    baseline.remove();
  }
  return {
    figures,
    checks,
    goals,
    notes: [`before = commit ${baseline.commit} (BENCH_MAIL_BASELINE), after = this tree; same machine, same run.`],
  };
}

// ---------------------------------------------------------------------------------------
// mail
// ---------------------------------------------------------------------------------------

/** Waits until `count` ticket.issued events are recorded, or `timeoutMs` has passed (the check then tells). */
async function issuedEvents(c: pg.Client, count: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM domain_events WHERE type = 'ticket.issued'`,
    );
    if (rows[0]!.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function mailRun(root: string | undefined, smallOrders: number, bigTickets: number) {
  const stack = await startStack('postgresql', root);
  try {
    const { proc, sink, scratch } = stack;
    const { key } = await createOrganizerWithKey(proc.base);
    const small = await createEvent(proc.base, key, {
      performances: 1,
      capacity: smallOrders,
      ticketTypes: [{ name: 'General', price_minor: 3500, quantity: null }],
    });
    const big = await bigOrderEvent(proc, key, bigTickets);
    const connectionsBefore = sink.connections;
    const started = performance.now();
    const load = await runLoad({
      urls: [proc.base],
      connections: 8,
      amount: smallOrders,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      next: () => ({
        path: '/v1/orders',
        body: JSON.stringify({
          items: [
            {
              performance_id: small.ticket_types[0]!.prices[0]!.performance_id,
              ticket_type_id: small.ticket_types[0]!.id,
              quantity: 1,
            },
          ],
          buyer: { first_name: 'Guest', email: 'guest@example.test' },
          tender: 'cash',
        }),
      }),
    });
    const { orderNo, postedAt } = await placeBigOrder(proc, key, big, bigTickets);
    const expected = 2 * smallOrders + 2;
    await sink.waitFor(expected, 600_000);
    const last = Math.max(...sink.mails.map((m) => m.at));
    const seconds = (last - started) / 1000;
    const bigMail = sink.mails.find((m) => m.subject === `Your tickets for order ${orderNo}`)!;
    // The one-ticket orders' e-ticket mails alone: a rate that does not depend on how many
    // small orders a run places next to the big one.
    const smallETickets = sink.mails.filter((m) => m.subject.startsWith('Your tickets') && m !== bigMail);
    const smallSeconds = (Math.max(...smallETickets.map((m) => m.at)) - started) / 1000;
    const smallMailBytes = smallETickets.reduce((sum, m) => sum + m.bytes, 0) / smallETickets.length;
    const lags = await withClient(scratch!.url, async (c) => {
      // ticket.issued is recorded once the mail is sent, in a transaction after the SMTP
      // answer: the last mail can reach the sink before its event commits.
      await issuedEvents(c, smallOrders + 1, 30_000);
      const rows = await c.query<{ lag_ms: number; tickets: number }>(
        `SELECT EXTRACT(EPOCH FROM (e.created_at - o.created_at)) * 1000 AS lag_ms, (e.data->>'ticket_count')::int AS tickets
           FROM domain_events e JOIN orders o ON o.id = (e.data->>'order_id')::uuid
          WHERE e.type = 'ticket.issued'`,
      );
      return rows.rows.map((r) => ({ lag: Number(r.lag_ms), tickets: r.tickets }));
    });
    const lagMs = lags.map((l) => l.lag);
    return {
      figures: {
        orders_201: load.statuses['201'] ?? 0,
        mails: sink.mails.length,
        emails_per_s: round(sink.mails.length / seconds, 1),
        etickets_per_s: round((smallOrders + bigTickets) / seconds, 1),
        one_ticket_etickets_per_s: round(smallETickets.length / smallSeconds, 1),
        big_order_eticket_mail_ms: round(bigMail.at - postedAt),
        big_order_mail_mib: round(bigMail.bytes / 2 ** 20, 2),
        // What one ticket weighs in a mail: a one-ticket mail whole, and the big one shared out.
        one_ticket_mail_kib: round(smallMailBytes / 1024, 1),
        big_order_mail_kib_per_ticket: round(bigMail.bytes / 1024 / bigTickets, 2),
        ticket_issued_lag_p50_ms: round(percentile(lagMs, 50)),
        ticket_issued_lag_p99_ms: round(percentile(lagMs, 99)),
        ticket_issued_lag_max_ms: round(Math.max(...lagMs)),
        smtp_connections: sink.connections - connectionsBefore,
      },
      issued: lags.length,
      ticketsIssued: lags.reduce((s, l) => s + l.tickets, 0),
    };
  } finally {
    await stack.close();
  }
}

export async function mailScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const bigTickets = opts.quick ? 200 : BIG_ITEMS * PER_ITEM_MAX;
  // The baseline sends a few hundred mails a minute: fewer small orders keep it short;
  // the figures are rates.
  const sizes = { before: opts.quick ? 40 : 150, nodocs: opts.quick ? 200 : 1000, after: opts.quick ? 200 : 1000 };
  const baseline: BaselineTree = checkoutBaseline(BASELINE_REF);
  const noDocuments: BaselineTree = checkoutBaseline(DOCUMENTS_BASELINE_REF);
  const roots = { before: baseline.root, nodocs: noDocuments.root, after: undefined };
  const figures: Record<string, number> = {};
  const checks: Check[] = [];
  try {
    for (const label of ['before', 'nodocs', 'after'] as const) {
      const r = await mailRun(roots[label], sizes[label], bigTickets);
      for (const [k, v] of Object.entries(r.figures)) figures[`${label}_${k}`] = v;
      checks.push(
        check(
          `${label}: every order placed`,
          r.figures.orders_201 === sizes[label],
          `${r.figures.orders_201} of ${sizes[label]}`,
        ),
      );
      checks.push(
        check(
          `${label}: one ticket.issued per order, every ticket`,
          r.issued === sizes[label] + 1 && r.ticketsIssued === sizes[label] + bigTickets,
          `${r.issued} events, ${r.ticketsIssued} tickets`,
        ),
      );
    }
  } finally {
    baseline.remove();
    noDocuments.remove();
  }
  const commit = baseline.commit;
  return {
    figures,
    checks,
    goals: [
      // Same mix on both sides: one-ticket orders (the mixed figure weighs the big order by
      // its share of the run's tickets, which differs between the two sides).
      {
        name: 'one-ticket e-tickets/s, after / before',
        ratio: round(figures.after_one_ticket_etickets_per_s! / figures.before_one_ticket_etickets_per_s!, 2),
        bound: 10,
        kind: 'min',
      },
      // The documents (a PDF and a calendar file in every e-ticket mail) may cost at most half.
      {
        name: 'one-ticket e-tickets/s with documents, after / nodocs',
        ratio: round(figures.after_one_ticket_etickets_per_s! / figures.nodocs_one_ticket_etickets_per_s!, 2),
        bound: 0.5,
        kind: 'min',
      },
    ],
    notes: [
      `before = commit ${commit} with ${sizes.before} one-ticket orders, nodocs = commit ${noDocuments.commit} (e-ticket mails without PDF or calendar files) with ${sizes.nodocs}, after = this tree with ${sizes.after}; each with one ${bigTickets}-ticket order, PostgreSQL, same run.`,
    ],
  };
}
