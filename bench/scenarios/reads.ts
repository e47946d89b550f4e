/**
 * Reads: GET /v1/events/{id} (10 performances × 5 ticket types), 32 connections for 10 s,
 * against a bare node:http server in its own process answering the same bytes: once with
 * Marquee on PostgreSQL, once on the embedded database (no DATABASE_URL, an idle process).
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
import { round } from '../lib/stats.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const READ_CONNECTIONS = 32;

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

/** Marquee's reads, then the bare server's with the same bytes. */
export async function readsAgainst(proc: MarqueeProcess, durationS: number) {
  const { key, path } = await setupReadEvent(proc);
  const once = await request(`${proc.base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await once.body.arrayBuffer());
  const contentType = String(once.headers['content-type'] ?? 'application/json');
  // Warm-up (JIT, connection pool, prepared plans), not measured.
  await runLoad({
    urls: [proc.base],
    connections: READ_CONNECTIONS,
    durationS: 1,
    path,
    headers: { authorization: `Bearer ${key}` },
  });
  const marquee = await measuredLoad(proc.pid, {
    urls: [proc.base],
    connections: READ_CONNECTIONS,
    durationS,
    path,
    headers: { authorization: `Bearer ${key}` },
  });
  return { key, path, bytes, contentType, marquee, status: once.statusCode };
}

/**
 * The same reads against a helper server (./lib/bare-server.ts, ./lib/bare-fastify.ts or
 * ./lib/lean-fastify.ts) answering the same bytes; `key` is the API key a helper checks.
 */
async function helperReads(
  script: string,
  bytes: Buffer,
  contentType: string,
  path: string,
  durationS: number,
  key = 'x',
) {
  const dir = mkdtempSync(join(tmpdir(), 'marquee-bench-bare-'));
  const file = join(dir, 'body.json');
  writeFileSync(file, bytes);
  const bare = await startHelper(script, [file, contentType, key], /listening (\d+)/);
  try {
    const base = `http://127.0.0.1:${bare.match[1]}`;
    const headers = { authorization: `Bearer ${key}` };
    await runLoad({ urls: [base], connections: READ_CONNECTIONS, durationS: 1, path, headers });
    return await measuredLoad(bare.child.pid!, {
      urls: [base],
      connections: READ_CONNECTIONS,
      durationS,
      path,
      headers,
    });
  } finally {
    await bare.stop();
  }
}

export function bareReads(bytes: Buffer, contentType: string, path: string, durationS: number) {
  return helperReads('bench/lib/bare-server.ts', bytes, contentType, path, durationS);
}

/** Marquee's reads, then (Marquee stopped, so the two never share the machine) the bare server's. */
async function readsThenBare(proc: MarqueeProcess, durationS: number) {
  const m = await readsAgainst(proc, durationS);
  await proc.stop();
  const bare = await bareReads(m.bytes, m.contentType, m.path, durationS);
  const non200 = m.marquee.requests - (m.marquee.statuses['200'] ?? 0);
  return { m, bare, non200, ratio: m.marquee.reqPerS / bare.reqPerS };
}

/**
 * The same reads with Marquee on the embedded database in a fresh DATA_DIR, nothing else
 * running (the embedded scenario reports its reads beside a rush's mail drain).
 */
async function embeddedReads(durationS: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'marquee-bench-reads-pglite-'));
  const proc = await startMarquee({ role: 'all', dataDir });
  try {
    return await readsThenBare(proc, durationS);
  } finally {
    await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function readsScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const durationS = opts.quick ? 3 : 10;
  const scratch = await createScratchDb('reads');
  const proc = await startMarquee({
    role: 'all',
    databaseUrl: scratch.url,
    ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
  });
  try {
    const { m, bare, non200, ratio } = await readsThenBare(proc, durationS);
    // The framework's floor: Fastify alone, the same bytes (no authentication, limits or ids).
    const floor = await helperReads('bench/lib/bare-fastify.ts', m.bytes, m.contentType, m.path, durationS);
    // What the API's rules cost on Fastify with none of Marquee's own code (./lib/lean-fastify.ts).
    const lean = await helperReads('bench/lib/lean-fastify.ts', m.bytes, m.contentType, m.path, durationS, m.key);
    const embedded = await embeddedReads(durationS);
    return {
      figures: {
        response_bytes: m.bytes.length,
        marquee_req_per_s: round(m.marquee.reqPerS),
        marquee_p50_ms: m.marquee.p50_ms,
        marquee_p99_ms: m.marquee.p99_ms,
        marquee_cpu_us_per_req: m.marquee.serverCpuUs,
        load_tool_cpu_us_per_marquee_req: m.marquee.toolCpuUs,
        bare_req_per_s: round(bare.reqPerS),
        bare_p50_ms: bare.p50_ms,
        bare_p99_ms: bare.p99_ms,
        bare_cpu_us_per_req: bare.serverCpuUs,
        load_tool_cpu_us_per_bare_req: bare.toolCpuUs,
        ratio_req_per_s: round(ratio, 3),
        fastify_floor_req_per_s: round(floor.reqPerS),
        fastify_floor_cpu_us_per_req: floor.serverCpuUs,
        fastify_floor_over_bare: round(floor.reqPerS / bare.reqPerS, 3),
        marquee_over_fastify_floor: round(m.marquee.reqPerS / floor.reqPerS, 3),
        lean_fastify_req_per_s: round(lean.reqPerS),
        lean_fastify_cpu_us_per_req: lean.serverCpuUs,
        lean_fastify_over_bare: round(lean.reqPerS / bare.reqPerS, 3),
        marquee_over_lean_fastify: round(m.marquee.reqPerS / lean.reqPerS, 3),
        embedded_marquee_req_per_s: round(embedded.m.marquee.reqPerS),
        embedded_marquee_p50_ms: embedded.m.marquee.p50_ms,
        embedded_marquee_p99_ms: embedded.m.marquee.p99_ms,
        embedded_marquee_cpu_us_per_req: embedded.m.marquee.serverCpuUs,
        embedded_bare_req_per_s: round(embedded.bare.reqPerS),
        embedded_ratio_req_per_s: round(embedded.ratio, 3),
      },
      checks: [
        check(
          'reads: every Marquee answer 200',
          non200 === 0 && m.marquee.errors === 0,
          `${non200} non-200, ${m.marquee.errors} errors of ${m.marquee.requests}`,
        ),
        check('reads: event detail has 10 performances × 5 types', m.status === 200, `${m.bytes.length} bytes`),
        check(
          'reads: every answer of the lean Fastify reference 200',
          lean.requests === (lean.statuses['200'] ?? 0) && lean.errors === 0,
          `${lean.requests - (lean.statuses['200'] ?? 0)} non-200, ${lean.errors} errors of ${lean.requests}`,
        ),
        check(
          'reads on the embedded database: every Marquee answer 200',
          embedded.non200 === 0 && embedded.m.marquee.errors === 0,
          `${embedded.non200} non-200, ${embedded.m.marquee.errors} errors of ${embedded.m.marquee.requests}; ${embedded.m.bytes.length} bytes`,
        ),
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
          ratio: round(embedded.ratio, 3),
          bound: 0.6,
          kind: 'min',
        },
      ],
    };
  } finally {
    await proc.stop();
    await scratch.drop();
  }
}
