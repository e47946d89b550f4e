/**
 * Embedded default: Marquee with no DATABASE_URL (PGlite in a temporary DATA_DIR), the
 * on-sale rush and the reads, plus cold start (spawn → /healthz answering, on an empty
 * DATA_DIR, migrations included) and peak RSS (VmHWM of the process). Idle RSS is read
 * on a restart once the rush's mails are all sent (a receipt and an e-ticket mail per
 * order, each one `.eml` in DATA_DIR/outbox, as without SMTP_URL): a process still
 * sending them is not idle.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOP_DELAY_PROBE, loopDelay, signalWindow } from '../lib/loop-delay.ts';
import { startMarquee } from '../lib/marquee.ts';
import { round } from '../lib/stats.ts';
import { planOrders, rush, rushChecks, setupRush } from './onsale.ts';
import { bareReads, readsAgainst } from './reads.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

/** How long the restarted process idles before its resident set is read. */
const IDLE_SETTLE_MS = 2000;
/** Mails a sale sends: its receipt and its e-tickets (docs/orders.md, "E-mail"). */
const MAILS_PER_ORDER = 2;
/** Longest wait for the rush's mails to be sent before the restart. */
const MAIL_DRAIN_TIMEOUT_MS = 300_000;

/** Waits until `outboxDir` holds `count` `.eml` files; the seconds it took, or undefined on timeout. */
async function outboxHolds(outboxDir: string, count: number): Promise<number | undefined> {
  const started = performance.now();
  const written = () => {
    try {
      return readdirSync(outboxDir).filter((name) => name.endsWith('.eml')).length;
    } catch {
      return 0;
    }
  };
  while (written() < count) {
    if (performance.now() - started > MAIL_DRAIN_TIMEOUT_MS) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return (performance.now() - started) / 1000;
}

export async function embeddedScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const capacity = opts.quick ? 1000 : 5000;
  const cap = capacity / 5;
  const durationS = opts.quick ? 3 : 10;
  const dataDir = mkdtempSync(join(tmpdir(), 'marquee-bench-pglite-'));
  const proc = await startMarquee({ role: 'all', dataDir, preload: [LOOP_DELAY_PROBE] });
  try {
    const coldStartMs = proc.startMs;
    const setup = await setupRush(proc, capacity, cap);
    // The API thread's event-loop delay over the rush: while the embedded database works
    // on its own thread, a request never waits for this loop to come round to its socket.
    await signalWindow(proc);
    const figures = await rush(setup, planOrders(capacity, cap));
    await signalWindow(proc);
    const rushLoop = loopDelay(proc);
    const checks = await rushChecks(undefined, proc.base, setup, capacity, cap, figures);
    const reads = await readsAgainst(proc, durationS);
    const peak = proc.peakRssMiB();
    const mails = MAILS_PER_ORDER * figures.orders;
    const mailDrainS = await outboxHolds(join(dataDir, 'outbox'), mails);
    await proc.stop();
    const bare = await bareReads(reads.bytes, reads.contentType, reads.path, durationS);
    // A warm restart on the same DATA_DIR (no migrations to apply), then idle.
    const again = await startMarquee({ role: 'all', dataDir });
    const warmStartMs = again.startMs;
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idleRss = again.rssMiB();
    await again.stop();
    const out: Record<string, number> = {
      cold_start_ms: round(coldStartMs),
      warm_start_ms: round(warmStartMs),
      idle_rss_mib: round(idleRss),
      peak_rss_mib: round(peak),
      rush_loop_delay_p50_ms: rushLoop.p50_ms,
      rush_loop_delay_p99_ms: rushLoop.p99_ms,
      rush_loop_delay_max_ms: rushLoop.max_ms,
      mail_drain_after_reads_s: round(mailDrainS ?? Number.NaN, 1),
    };
    for (const [k, v] of Object.entries(figures)) out[`rush_${k}`] = v;
    Object.assign(out, {
      reads_req_per_s: round(reads.marquee.reqPerS),
      reads_p50_ms: reads.marquee.p50_ms,
      reads_p99_ms: reads.marquee.p99_ms,
      bare_req_per_s: round(bare.reqPerS),
      bare_p99_ms: bare.p99_ms,
      reads_ratio: round(reads.marquee.reqPerS / bare.reqPerS, 3),
    });
    const non200 = reads.marquee.requests - (reads.marquee.statuses['200'] ?? 0);
    return {
      figures: out,
      checks: [
        ...checks.map((c) => ({ ...c, name: `PGlite ${c.name}` })),
        check('PGlite reads: every answer 200', non200 === 0, `${non200} non-200 of ${reads.marquee.requests}`),
        check(
          'PGlite mails: a receipt and an e-ticket mail per order sent before the idle restart',
          mailDrainS !== undefined,
          mailDrainS === undefined
            ? `fewer than ${mails} in the outbox after ${MAIL_DRAIN_TIMEOUT_MS / 1000} s`
            : `${mails} sent, ${round(mailDrainS, 1)} s after the reads`,
        ),
      ],
      goals: [
        {
          name: 'embedded: first start (empty DATA_DIR) to ready, ms',
          ratio: round(coldStartMs),
          bound: 4000,
          kind: 'max',
        },
        { name: 'embedded: second start to ready, ms', ratio: round(warmStartMs), bound: 1500, kind: 'max' },
        { name: 'embedded: RSS idle after the second start, MiB', ratio: round(idleRss), bound: 250, kind: 'max' },
        { name: 'embedded: peak RSS through the rush and the reads, MiB', ratio: round(peak), bound: 400, kind: 'max' },
        { name: 'embedded: rush p99 at 64 clients, ms', ratio: figures.p99_ms, bound: 500, kind: 'max' },
        {
          name: 'embedded: API event-loop delay p99 during the rush, ms (requests never wait for the loop)',
          ratio: rushLoop.p99_ms,
          bound: 50,
          kind: 'max',
        },
      ],
      notes: [
        'Sold counts are checked through the availability endpoint and the post-sell-out probe (the PGlite files belong to the process).',
      ],
    };
  } finally {
    await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
