/**
 * Rolling restart: two ROLE=api processes on one PostgreSQL behind HAProxy (the balancer
 * of test/helpers/haproxy.ts: GET /readyz every 200 ms, fall 1, rise 2), 64 keep-alive
 * clients at 300 requests a second of event reads, order pages and orders with an
 * Idempotency-Key (test/helpers/rolling-load.ts), while each process in turn gets SIGTERM,
 * drains for the default SHUTDOWN_DRAIN_PERIOD (5 s), exits and starts again on its port.
 * The goal is not one failed request (docs/deploy.md, "Rolling restarts behind a load
 * balancer"); the figures count what would show a failure: transport errors (refused,
 * reset), 5xx, keyed orders never answered, orders lost or doubled. The same run with
 * SHUTDOWN_DRAIN_PERIOD=0s (figures `no_drain_*`) shows what the drain period prevents.
 */
import { createScratchDb, withClient } from '../lib/db.ts';
import { createEvent, createOrganizerWithKey, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { percentile, round } from '../lib/stats.ts';
import { startHaproxy } from '../../test/helpers/haproxy.ts';
import { closedPort } from '../../test/helpers/ports.ts';
import { startLoad } from '../../test/helpers/rolling-load.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const CLIENTS = 64;
const RATE_PER_S = 300;
/** The drain period of docs/deploy.md's example and of the default. */
const DRAIN_PERIOD = '5s';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function rollingRestartScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const durationMs = opts.quick ? 20_000 : 30_000;
  const drained = await rollingRestart(DRAIN_PERIOD, durationMs);
  const undrained = await rollingRestart('0s', durationMs);
  const failed = drained.figures.failed_requests!;
  return {
    figures: {
      ...drained.figures,
      ...Object.fromEntries(Object.entries(undrained.figures).map(([k, v]) => [`no_drain_${k}`, v])),
    },
    checks: [
      ...drained.checks,
      // Without the drain requests fail, but the keyed orders must still come out exact.
      ...undrained.checks
        .filter((c) => !/no failed request|answered 201/.test(c.name))
        .map((c) => ({ ...c, name: `${c.name} (no drain period)` })),
    ],
    goals: [{ name: 'failed requests during two rolling restarts', ratio: failed, bound: 0, kind: 'max' }],
    notes: [
      `${CLIENTS} keep-alive clients at ${RATE_PER_S} requests/s in all (3 event reads, 1 order page, 1 keyed order in 5); SHUTDOWN_DRAIN_PERIOD=${DRAIN_PERIOD}, and 0s for the no_drain_ figures.`,
      'restart_out_of_rotation_ms: SIGTERM to HAProxy marking the server DOWN; restart_exit_ms: SIGTERM to exit; restart_back_up_ms: SIGTERM to the new process UP in HAProxy (worst of the two restarts).',
      ...undrained.failures
        .slice(0, 5)
        .map((f) => `No drain period, a failure: ${f.replace(/\s+/g, ' ').slice(0, 160)}`),
    ],
  };
}

/** One run: two API processes behind HAProxy, each restarted in turn under the load. */
async function rollingRestart(
  drainPeriod: string,
  durationMs: number,
): Promise<Pick<ScenarioResult, 'figures' | 'checks'> & { failures: string[] }> {
  const scratch = await createScratchDb('rollingrestart');
  const ports = [await closedPort(), await closedPort()];
  const start = (port: number) =>
    startMarquee({
      role: 'api',
      databaseUrl: scratch.url,
      port,
      env: { SHUTDOWN_DRAIN_PERIOD: drainPeriod, HTTP_MAX_CONNECTIONS_PER_IP: '0' },
    });
  const procs: MarqueeProcess[] = [];
  const balancer = await startHaproxy(ports);
  try {
    procs.push(await start(ports[0]!));
    procs.push(await start(ports[1]!));
    const { organizerId, key } = await createOrganizerWithKey(procs[0]!.base, 'Rolling Restart');
    const event = await createEvent(procs[0]!.base, key, {
      performances: 1,
      capacity: 1_000_000,
      ticketTypes: [{ name: 'General', price_minor: 2500, quantity: null }],
    });
    await balancer.waitForStatus({ api1: 'UP', api2: 'UP' });

    const load = startLoad(
      {
        url: balancer.url,
        apiKey: key,
        eventId: event.id,
        performanceId: event.ticket_types[0]!.prices[0]!.performance_id,
        ticketTypeId: event.ticket_types[0]!.id,
      },
      { clients: CLIENTS, ratePerS: RATE_PER_S },
    );
    const began = performance.now();
    const restarting = (async () => {
      const restarts: { outMs: number; exitMs: number; upMs: number; exitCode: number | null }[] = [];
      // Restart api1 a tenth into the run and api2 half-way, each then serving again.
      for (const [i, at] of [0.1, 0.5].entries()) {
        await sleep(Math.max(0, began + at * durationMs - performance.now()));
        const server = `api${i + 1}`;
        const signalled = performance.now();
        const stopping = procs[i]!.stop();
        await balancer.waitForStatus({ [server]: 'DOWN' }, 10_000);
        const outMs = performance.now() - signalled;
        await stopping;
        const exitMs = performance.now() - signalled;
        const exitCode = procs[i]!.child.exitCode;
        procs[i] = await start(ports[i]!);
        await balancer.waitForStatus({ [server]: 'UP' }, 30_000);
        restarts.push({ outMs, exitMs, upMs: performance.now() - signalled, exitCode });
      }
      await sleep(Math.max(0, began + durationMs - performance.now()));
      return restarts;
    })();
    // The load stops whether or not the restarts went through.
    const [restarted] = await Promise.allSettled([restarting]);
    const report = await load.stop();
    if (restarted.status === 'rejected') throw restarted.reason;
    const restarts = restarted.value;
    const servers = await balancer.servers();

    // What the database holds, against what the clients were told.
    const rows = await withClient(scratch.url, async (c) => {
      const orders = await c.query<{ id: string; email: string; tickets: string }>(
        `SELECT o.id, o.buyer_email AS email, (SELECT count(*) FROM tickets t WHERE t.order_id = o.id) AS tickets
           FROM orders o WHERE o.organizer_id = $1`,
        [organizerId],
      );
      return orders.rows;
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const answers = [...report.answers.values()];
    const created = answers.filter((a) => a.status === 201);
    const lost = created.filter((a) => !byId.has(a.orderId!)).length;
    const emails = new Set(rows.map((r) => r.email));
    const doubled = rows.length - emails.size;
    const unreported = rows.filter((r) => !created.some((a) => a.orderId === r.id)).length;
    const ticketsAnswered = created.reduce((sum, a) => sum + a.tickets, 0);
    const ticketsSold = rows.reduce((sum, r) => sum + Number(r.tickets), 0);
    const failed = report.transportErrors + report.serverErrors + report.unexpected;
    const unanswered = report.keys.length - report.answers.size;
    const haproxy = Object.values(servers);

    return {
      failures: report.failures,
      figures: {
        seconds: round(report.seconds, 1),
        requests: report.requests,
        requests_per_s: round(report.requests / report.seconds),
        failed_requests: failed,
        transport_errors: report.transportErrors,
        responses_5xx: report.serverErrors,
        orders_keyed: report.keys.length,
        orders_201: created.length,
        orders_replayed: answers.filter((a) => a.replayed).length,
        orders_retried: answers.filter((a) => a.attempts > 1).length,
        keyed_retries_unanswered: unanswered,
        orders_lost: lost,
        orders_doubled: doubled,
        orders_unreported: unreported,
        tickets_sold: ticketsSold,
        tickets_mismatch: Math.abs(ticketsSold - ticketsAnswered),
        latency_p50_ms: round(percentile(report.latenciesMs, 50), 1),
        latency_p99_ms: round(percentile(report.latenciesMs, 99), 1),
        latency_max_ms: round(percentile(report.latenciesMs, 100), 1),
        haproxy_retries: haproxy.reduce((sum, s) => sum + s.retries + s.redispatches, 0),
        haproxy_errors: haproxy.reduce((sum, s) => sum + s.connectionErrors + s.responseErrors, 0),
        restart_out_of_rotation_ms: round(Math.max(...restarts.map((r) => r.outMs))),
        restart_exit_ms: round(Math.max(...restarts.map((r) => r.exitMs))),
        restart_back_up_ms: round(Math.max(...restarts.map((r) => r.upMs))),
      },
      checks: [
        check(
          'rolling restart: every stopped process exited 0',
          restarts.every((r) => r.exitCode === 0),
          restarts.map((r) => r.exitCode).join(', '),
        ),
        check('rolling restart: no failed request', failed === 0, report.failures.join(' | ') || 'none'),
        check(
          'rolling restart: every keyed order answered 201',
          unanswered === 0 && created.length === answers.length,
          `${created.length} of ${report.keys.length}`,
        ),
        check(
          'rolling restart: orders in the database are exactly the 201s',
          lost === 0 && doubled === 0 && unreported === 0 && rows.length === created.length,
          `${rows.length} orders, ${created.length} answered 201, ${lost} lost, ${doubled} doubled, ${unreported} unreported`,
        ),
        check(
          'rolling restart: tickets sold equal what the 201s carried',
          ticketsSold === ticketsAnswered,
          `${ticketsSold} sold, ${ticketsAnswered} in the 201s`,
        ),
      ],
    };
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await balancer.stop();
    await scratch.drop();
  }
}
