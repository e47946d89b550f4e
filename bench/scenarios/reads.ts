/**
 * Reads: GET /v1/events/{id} (10 performances × 5 ticket types), 32 connections for 10 s,
 * against a bare node:http server in its own process answering the same bytes: once with
 * Marquee on PostgreSQL (beside the Fastify floor and the lean Fastify reference), once on
 * the embedded database (no DATABASE_URL, an idle process). The servers of a leg are
 * measured in turns of a few seconds, each frozen while another is measured
 * (interleavedReads). In the PostgreSQL leg, Marquee of an earlier commit
 * (BENCH_READS_BASELINE) reads the same event of the same database in the same turns, so
 * what a change of the read path bought is measured in one run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startHelper } from '../lib/child.ts';
import { createScratchDb } from '../lib/db.ts';
import { runLoad } from '../lib/load.ts';
import { processCpuMs } from '../lib/proc-cpu.ts';
import { createEvent, createOrganizerWithKey, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { latencySummary, round } from '../lib/stats.ts';
import { checkoutBaseline } from '../lib/baseline-tree.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const READ_CONNECTIONS = 32;
/** One turn of a server in interleavedReads, in seconds. */
const TURN_S = 2;
/** The commit whose Marquee the PostgreSQL leg reads beside this tree's: the last before a connection hashed its key once. */
const BASELINE_REF = process.env.BENCH_READS_BASELINE ?? '8f2226f';

/** An organizer, its key and the read's event (10 performances × 5 ticket types); the read's path. */
export async function setupReadEvent(proc: Pick<MarqueeProcess, 'base'>): Promise<{ key: string; path: string }> {
  const { key } = await createOrganizerWithKey(proc.base);
  const event = await createEvent(proc.base, key, {
    performances: 10,
    capacity: 500,
    ticketTypes: [
      { name: 'General', price_minor: 3500, quantity: null },
      { name: 'Reduced', price_minor: 2500, quantity: 100 },
      { name: 'Student', price_minor: 1500, quantity: 50 },
      { name: 'Front Row', price_minor: 9000, quantity: 20 },
      { name: 'Companion', price_minor: 0, quantity: null },
    ],
  });
  return { key, path: `/v1/events/${event.id}` };
}

type LoadOptions = Parameters<typeof runLoad>[0];

/**
 * A measured load with the CPU it cost: the server's (user + system, all threads, from
 * /proc) and the load tool's (this process), each in µs per answered request. Throughput
 * moves with the machine; the server's CPU per request is the figure a cut shows in.
 */
async function measuredLoad(serverPid: number, opts: LoadOptions) {
  const serverBefore = processCpuMs(serverPid);
  const toolBefore = process.cpuUsage();
  const result = await runLoad(opts);
  const tool = process.cpuUsage(toolBefore);
  const serverUs = (processCpuMs(serverPid) - serverBefore) * 1000;
  const perRequest = (us: number) => round(us / Math.max(result.requests, 1), 1);
  return { ...result, serverCpuUs: perRequest(serverUs), toolCpuUs: perRequest(tool.user + tool.system) };
}

/** A server the reads load is sent to: Marquee, or a helper answering Marquee's bytes. */
interface ReadTarget {
  pid: number;
  /** http://127.0.0.1:PORT */
  base: string;
  /** The API key the server checks. */
  key: string;
}

/** A running Marquee as a target of the reads load. */
function marqueeTarget(proc: MarqueeProcess, key: string): ReadTarget {
  return { pid: proc.pid, base: proc.base, key };
}

/** The read's event on a running Marquee, and its answer: the bytes the helpers send back. */
async function firstRead(proc: MarqueeProcess) {
  const { key, path } = await setupReadEvent(proc);
  const once = await request(`${proc.base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await once.body.arrayBuffer());
  const contentType = String(once.headers['content-type'] ?? 'application/json');
  return { key, path, bytes, contentType, status: once.statusCode, target: marqueeTarget(proc, key) };
}

function readLoad(target: ReadTarget, path: string, durationS: number): LoadOptions {
  return {
    urls: [target.base],
    connections: READ_CONNECTIONS,
    durationS,
    path,
    headers: { authorization: `Bearer ${target.key}` },
  };
}

/** One second of the load, not measured: JIT, connections, Marquee's pool and prepared plans. */
function warmUp(target: ReadTarget, path: string) {
  return runLoad(readLoad(target, path, 1));
}

/** A target's reads after a warm-up, measured alone. */
async function warmedReads(target: ReadTarget, path: string, durationS: number) {
  await warmUp(target, path);
  return measuredLoad(target.pid, readLoad(target, path, durationS));
}

/** Marquee's reads after a warm-up, measured alone. */
export async function readsAgainst(proc: MarqueeProcess, durationS: number) {
  const first = await firstRead(proc);
  return { ...first, marquee: await warmedReads(first.target, first.path, durationS) };
}

/**
 * A helper server (./lib/bare-server.ts, ./lib/bare-fastify.ts or ./lib/lean-fastify.ts)
 * answering `bytes` to requests carrying `key`.
 */
async function startReadHelper(script: string, bytes: Buffer, contentType: string, key = 'x') {
  const dir = mkdtempSync(join(tmpdir(), 'marquee-bench-bare-'));
  const file = join(dir, 'body.json');
  writeFileSync(file, bytes);
  const helper = await startHelper(script, [file, contentType, key], /listening (\d+)/);
  return {
    target: { pid: helper.child.pid!, base: `http://127.0.0.1:${helper.match[1]}`, key },
    async stop() {
      await helper.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bare server's reads of the same bytes after a warm-up, measured alone. */
export async function bareReads(bytes: Buffer, contentType: string, path: string, durationS: number) {
  const bare = await startReadHelper('bench/lib/bare-server.ts', bytes, contentType);
  try {
    return await warmedReads(bare.target, path, durationS);
  } finally {
    await bare.stop();
  }
}

type MeasuredLoad = Awaited<ReturnType<typeof measuredLoad>>;

/** Turns of one server added up: rates over the time measured, percentiles over every answer. */
function addTurns(turns: MeasuredLoad[]): MeasuredLoad {
  const requests = turns.reduce((sum, t) => sum + t.requests, 0);
  const durationS = turns.reduce((sum, t) => sum + t.durationS, 0);
  const statuses: Record<string, number> = {};
  for (const t of turns)
    for (const [status, n] of Object.entries(t.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const latencies = turns.flatMap((t) => t.latencies);
  const perRequest = (field: 'serverCpuUs' | 'toolCpuUs') =>
    round(turns.reduce((sum, t) => sum + t[field] * t.requests, 0) / Math.max(requests, 1), 1);
  return {
    requests,
    durationS,
    reqPerS: requests / durationS,
    statuses,
    errors: turns.reduce((sum, t) => sum + t.errors, 0),
    timeouts: turns.reduce((sum, t) => sum + t.timeouts, 0),
    latencies,
    ...latencySummary(latencies),
    serverCpuUs: perRequest('serverCpuUs'),
    toolCpuUs: perRequest('toolCpuUs'),
  };
}

/**
 * The reads load on each target for `durationS` in all, measured in turns of TURN_S
 * seconds, the order rotating each round, after a warm-up of 1 s each. Every target but
 * the one measured is frozen (SIGSTOP), so no two share the CPU, as when each runs alone,
 * and a drift of the machine's speed over the minute falls on every target alike instead
 * of on whichever was measured last (one after the other, the bare server's rate moved by
 * half between the two legs of one run; bench/README.md, Method).
 */
async function interleavedReads(targets: readonly ReadTarget[], path: string, durationS: number) {
  const turnS = Math.min(TURN_S, durationS);
  const rounds = Math.max(1, Math.round(durationS / turnS));
  const turns: MeasuredLoad[][] = targets.map(() => []);
  const freeze = (target: ReadTarget) => process.kill(target.pid, 'SIGSTOP');
  const thaw = (target: ReadTarget) => process.kill(target.pid, 'SIGCONT');
  targets.forEach(freeze);
  try {
    for (const target of targets) {
      thaw(target);
      await warmUp(target, path);
      freeze(target);
    }
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const index = (i + round) % targets.length;
        const target = targets[index]!;
        thaw(target);
        turns[index]!.push(await measuredLoad(target.pid, readLoad(target, path, turnS)));
        freeze(target);
      }
    }
  } finally {
    targets.forEach(thaw);
  }
  return turns.map(addTurns);
}

/**
 * The same reads with Marquee on the embedded database in a fresh DATA_DIR, nothing else
 * running (the embedded scenario reports its reads beside a rush's mail drain), in turns
 * with the bare server answering its bytes.
 */
async function embeddedReads(durationS: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'marquee-bench-reads-pglite-'));
  const proc = await startMarquee({ role: 'all', dataDir });
  let bare: Awaited<ReturnType<typeof startReadHelper>> | undefined;
  try {
    const first = await firstRead(proc);
    bare = await startReadHelper('bench/lib/bare-server.ts', first.bytes, first.contentType);
    const [marquee, bareLoad] = await interleavedReads([first.target, bare.target], first.path, durationS);
    return { first, marquee: marquee!, bare: bareLoad!, non200: marquee!.requests - (marquee!.statuses['200'] ?? 0) };
  } finally {
    await bare?.stop();
    await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function readsScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const durationS = opts.quick ? 3 : 10;
  const scratch = await createScratchDb('reads');
  const start = () =>
    startMarquee({
      role: 'all',
      databaseUrl: scratch.url,
      ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
    });
  let proc = await start();
  const helpers: Awaited<ReturnType<typeof startReadHelper>>[] = [];
  const baseline = checkoutBaseline(BASELINE_REF);
  let baselineProc: MarqueeProcess | undefined;
  try {
    const setUp = await firstRead(proc);
    // The process that migrated the database and created the event ran code no read runs,
    // and read slower than a fresh start of the same commit in the same turns (bench/README.md,
    // Method): the Marquee measured is a fresh start, as the baseline commit's is.
    await proc.stop();
    proc = await start();
    const first = { ...setUp, target: marqueeTarget(proc, setUp.key) };
    // The earlier commit's Marquee on the same database: its first start builds its tree.
    baselineProc = await startMarquee({
      role: 'all',
      databaseUrl: scratch.url,
      root: baseline.root,
      readyTimeoutMs: 300_000,
    });
    const baselineTarget = marqueeTarget(baselineProc, first.key);
    const helper = async (script: string, key?: string) => {
      const started = await startReadHelper(script, first.bytes, first.contentType, key);
      helpers.push(started);
      return started.target;
    };
    const bareTarget = await helper('bench/lib/bare-server.ts');
    // The framework's floor: Fastify alone, the same bytes (no authentication, limits or ids).
    const floorTarget = await helper('bench/lib/bare-fastify.ts');
    // What the API's rules cost on Fastify with none of Marquee's own code (./lib/lean-fastify.ts).
    const leanTarget = await helper('bench/lib/lean-fastify.ts', first.key);
    const [marquee, bare, floor, lean, before] = (await interleavedReads(
      [first.target, bareTarget, floorTarget, leanTarget, baselineTarget],
      first.path,
      durationS,
    )) as [MeasuredLoad, MeasuredLoad, MeasuredLoad, MeasuredLoad, MeasuredLoad];
    for (const started of helpers.splice(0)) await started.stop();
    await baselineProc.stop();
    await proc.stop();
    const beforeNon200 = before.requests - (before.statuses['200'] ?? 0);
    const non200 = marquee.requests - (marquee.statuses['200'] ?? 0);
    const ratio = marquee.reqPerS / bare.reqPerS;
    const embedded = await embeddedReads(durationS);
    const embeddedRatio = embedded.marquee.reqPerS / embedded.bare.reqPerS;
    return {
      figures: {
        response_bytes: first.bytes.length,
        marquee_req_per_s: round(marquee.reqPerS),
        marquee_p50_ms: marquee.p50_ms,
        marquee_p99_ms: marquee.p99_ms,
        marquee_cpu_us_per_req: marquee.serverCpuUs,
        load_tool_cpu_us_per_marquee_req: marquee.toolCpuUs,
        bare_req_per_s: round(bare.reqPerS),
        bare_p50_ms: bare.p50_ms,
        bare_p99_ms: bare.p99_ms,
        bare_cpu_us_per_req: bare.serverCpuUs,
        load_tool_cpu_us_per_bare_req: bare.toolCpuUs,
        ratio_req_per_s: round(ratio, 3),
        fastify_floor_req_per_s: round(floor.reqPerS),
        fastify_floor_cpu_us_per_req: floor.serverCpuUs,
        fastify_floor_over_bare: round(floor.reqPerS / bare.reqPerS, 3),
        marquee_over_fastify_floor: round(marquee.reqPerS / floor.reqPerS, 3),
        lean_fastify_req_per_s: round(lean.reqPerS),
        lean_fastify_cpu_us_per_req: lean.serverCpuUs,
        lean_fastify_over_bare: round(lean.reqPerS / bare.reqPerS, 3),
        marquee_over_lean_fastify: round(marquee.reqPerS / lean.reqPerS, 3),
        baseline_marquee_req_per_s: round(before.reqPerS),
        baseline_marquee_cpu_us_per_req: before.serverCpuUs,
        baseline_marquee_over_bare: round(before.reqPerS / bare.reqPerS, 3),
        marquee_over_baseline_marquee: round(marquee.reqPerS / before.reqPerS, 3),
        embedded_marquee_req_per_s: round(embedded.marquee.reqPerS),
        embedded_marquee_p50_ms: embedded.marquee.p50_ms,
        embedded_marquee_p99_ms: embedded.marquee.p99_ms,
        embedded_marquee_cpu_us_per_req: embedded.marquee.serverCpuUs,
        embedded_bare_req_per_s: round(embedded.bare.reqPerS),
        embedded_ratio_req_per_s: round(embeddedRatio, 3),
      },
      checks: [
        check(
          'reads: every Marquee answer 200',
          non200 === 0 && marquee.errors === 0,
          `${non200} non-200, ${marquee.errors} errors of ${marquee.requests}`,
        ),
        check('reads: event detail has 10 performances × 5 types', first.status === 200, `${first.bytes.length} bytes`),
        check(
          `reads: every answer of the baseline Marquee (commit ${baseline.commit}) 200`,
          beforeNon200 === 0 && before.errors === 0,
          `${beforeNon200} non-200, ${before.errors} errors of ${before.requests}`,
        ),
        check(
          'reads: every answer of the lean Fastify reference 200',
          lean.requests === (lean.statuses['200'] ?? 0) && lean.errors === 0,
          `${lean.requests - (lean.statuses['200'] ?? 0)} non-200, ${lean.errors} errors of ${lean.requests}`,
        ),
        check(
          'reads on the embedded database: every Marquee answer 200',
          embedded.non200 === 0 && embedded.marquee.errors === 0,
          `${embedded.non200} non-200, ${embedded.marquee.errors} errors of ${embedded.marquee.requests}; ${embedded.first.bytes.length} bytes`,
        ),
      ],
      notes: [
        `baseline_marquee = commit ${baseline.commit} (BENCH_READS_BASELINE) on the same database, in the same turns.`,
      ],
      goals: [
        { name: 'reads: Marquee req/s ÷ bare node:http req/s', ratio: round(ratio, 3), bound: 0.6, kind: 'min' },
        {
          name: 'reads: Marquee req/s ÷ bare node:http req/s (the stricter goal)',
          ratio: round(ratio, 3),
          bound: 0.8,
          kind: 'min',
        },
        {
          name: 'reads on the embedded database: Marquee req/s ÷ bare node:http req/s',
          ratio: round(embeddedRatio, 3),
          bound: 0.6,
          kind: 'min',
        },
      ],
    };
  } finally {
    for (const started of helpers) await started.stop();
    await baselineProc?.stop();
    await proc.stop();
    await scratch.drop();
    baseline.remove();
  }
}
