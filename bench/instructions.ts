/**
 * `npm run bench:instructions`: the CPU instructions one read costs, counted by valgrind's
 * callgrind, for GET /v1/events/{id} (10 performances × 5 types) under the reads
 * scenario's load (32 connections): Marquee (ROLE=api, PostgreSQL), the bare node:http
 * server, the Fastify floor, and the lean Fastify reference with all of the API's rules
 * and with each rule left out in turn (./lib/lean-fastify.ts, LEAN_WITHOUT).
 *
 * Throughput and CPU time on a shared 2-core machine move by ±15 % between runs of the
 * same code; a small server's instruction counts repeat within about 1 %, which prices a
 * rule that wall-clock figures cannot resolve. They miss what instructions do not show
 * (cache misses, the kernel's side of a syscall), so they complement `npm run bench`'s
 * ratios and never replace them. Each target is warmed (JIT, caches) before counting
 * starts, then counted over four windows (`--windows=`); the figure is their mean, each
 * window shown beside it: a major collection lands in some windows and not in others,
 * and it is part of what a read costs. Marquee runs as ROLE=api: a worker's polls tick on
 * the wall clock, and under valgrind's slowdown they would be counted against every read.
 * For the same reason its own clock runs slower by that slowdown (./lib/slowed-clock.mjs):
 * its caches expire by the clock, and each reload is shared by as many reads as at full speed.
 *
 *   npm run bench:instructions                       every target, written to bench/results.instructions.md
 *   npm run bench:instructions -- --only=marquee,bare   a subset, printed only
 *   npm run bench:instructions -- --warm=20000 --measure=5000 --windows=4
 *   npm run bench:instructions -- --only=marquee --root=DIR   Marquee of another tree (built), e.g. a baseline
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHelper } from './lib/child.ts';
import { createScratchDb } from './lib/db.ts';
import { runLoad } from './lib/load.ts';
import { ROOT, startMarquee } from './lib/marquee.ts';
import { setupReadEvent } from './scenarios/reads.ts';

const CONNECTIONS = 32;
const UNDER_VALGRIND_READY_MS = 300_000;
/**
 * V8 on one thread, with no heuristics that read the clock (the memory reducer's idle
 * collections, concurrent compilation finishing whenever it finishes): under valgrind's
 * slowdown those fire by wall time and would land in some windows and not others. And no
 * allocation-site pretenuring, which Marquee's `npm start` flags already turn off: in some
 * starts of a helper V8 pretenures a site whose objects die young, each scavenge then
 * carries megabytes into the old generation, and every window of that start counts a
 * quarter to a half high (bench/README.md).
 */
const DETERMINISTIC_V8 = ['--predictable', '--no-allocation-site-pretenuring'];
/**
 * About how many times slower a read of Marquee runs under callgrind than at full speed.
 * Marquee's clock runs that much slower (./lib/slowed-clock.mjs), so its caches, which
 * expire by the clock, reload after as many reads as at full speed (bench/README.md).
 */
const CALLGRIND_SLOWDOWN = 40;
const SLOWED_CLOCK = fileURLToPath(new URL('./lib/slowed-clock.mjs', import.meta.url));

const { values: args } = parseArgs({
  options: {
    warm: { type: 'string', default: '20000' },
    measure: { type: 'string', default: '5000' },
    windows: { type: 'string', default: '4' },
    only: { type: 'string' },
    /** Another tree's Marquee (a baseline, or a change under test) instead of this one. */
    root: { type: 'string' },
  },
});
const warm = Number(args.warm);
const measure = Number(args.measure);
const WINDOWS = Number(args.windows);
const only = args.only === undefined ? undefined : new Set(args.only.split(','));
const marqueeRoot = args.root;

interface Target {
  name: string;
  label: string;
  /** Starts the target under the wrapper; resolves with its pid, base URL and stop(). */
  start(wrapper: string[]): Promise<{ pid: number; base: string; stop(): Promise<void> }>;
}

interface ReadSetup {
  key: string;
  path: string;
  bodyFile: string;
  contentType: string;
  databaseUrl: string;
}

/** The event and its key in a scratch database, and the bytes Marquee answers the read with. */
async function setUp(dir: string, databaseUrl: string): Promise<ReadSetup> {
  const proc = await startMarquee({ role: 'api', databaseUrl });
  try {
    const { key, path } = await setupReadEvent(proc);
    const res = await fetch(`${proc.base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    const bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, Buffer.from(await res.arrayBuffer()));
    return { key, path, bodyFile, contentType: res.headers.get('content-type') ?? 'application/json', databaseUrl };
  } finally {
    await proc.stop();
  }
}

function helperTarget(name: string, label: string, script: string, setup: ReadSetup, env: Record<string, string> = {}) {
  return {
    name,
    label,
    async start(wrapper: string[]) {
      const helper = await startHelper(script, [setup.bodyFile, setup.contentType, setup.key], /listening (\d+)/, {
        env,
        wrapper,
        nodeFlags: DETERMINISTIC_V8,
        readyTimeoutMs: UNDER_VALGRIND_READY_MS,
      });
      return { pid: helper.child.pid!, base: `http://127.0.0.1:${helper.match[1]}`, stop: () => helper.stop() };
    },
  };
}

const LEAN_RULES: Array<[rule: string, label: string]> = [
  ['logging', 'a pino logger and its child per request'],
  ['request-id', 'a random UUID request id'],
  ['headers', 'the five headers (request id, CORS, rate limit)'],
  ['rate-limit', 'the two fixed-window counts'],
  ['key-hash', "the key's SHA-256"],
  ['id-validation', "the path id's UUID validation"],
];

function targets(setup: ReadSetup): Target[] {
  const lean = 'bench/lib/lean-fastify.ts';
  return [
    {
      name: 'marquee',
      label: 'Marquee (ROLE=api, PostgreSQL)',
      async start(wrapper: string[]) {
        const proc = await startMarquee({
          role: 'api',
          databaseUrl: setup.databaseUrl,
          ...(marqueeRoot ? { root: marqueeRoot } : {}),
          preload: [SLOWED_CLOCK],
          env: { CLOCK_SLOWDOWN: String(CALLGRIND_SLOWDOWN) },
          wrapper,
          nodeFlags: DETERMINISTIC_V8,
          readyTimeoutMs: UNDER_VALGRIND_READY_MS,
        });
        return { pid: proc.pid, base: proc.base, stop: () => proc.stop() };
      },
    },
    helperTarget('bare', 'bare node:http', 'bench/lib/bare-server.ts', setup),
    helperTarget('floor', 'Fastify floor (no hook, no schema)', 'bench/lib/bare-fastify.ts', setup),
    helperTarget('lean', 'lean Fastify reference (every rule)', lean, setup),
    ...LEAN_RULES.map(([rule, label]) =>
      helperTarget(`lean-${rule}`, `lean reference without ${label}`, lean, setup, { LEAN_WITHOUT: rule }),
    ),
    helperTarget('lean-none', 'lean reference without any rule', lean, setup, {
      LEAN_WITHOUT: LEAN_RULES.map(([rule]) => rule).join(','),
    }),
  ];
}

/**
 * callgrind_control finds a process by a file named after the process's user and host as
 * its environment gives them (USER or LOGNAME, HOST): it must see the same values.
 */
function vgdbEnvironment(pid: number): NodeJS.ProcessEnv {
  const target = new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
  );
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['USER', 'LOGNAME', 'HOST']) {
    const value = target.get(name);
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** The instruction total of a process's nth dump (callgrind numbers them from 1). */
function dumpedInstructions(dir: string, prefix: string, nth: number): number {
  const dump = readdirSync(dir).find((file) => file === `${prefix}${nth}` || file.startsWith(`${prefix}${nth}.`));
  if (dump === undefined) throw new Error(`callgrind wrote no dump ${prefix}${nth}`);
  const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'));
  if (!totals) throw new Error(`callgrind dump ${dump} has no totals`);
  return Number(totals[1]);
}

/**
 * Instructions per read of one target in each of WINDOWS windows of `measure` reads,
 * after `warm` reads and one window that are not counted.
 */
async function countTarget(target: Target, setup: ReadSetup, dir: string): Promise<number[]> {
  const outPrefix = join(dir, target.name);
  const wrapper = [
    'valgrind',
    '--tool=callgrind',
    // V8 writes and rewrites machine code at run time.
    '--smc-check=all-non-file',
    '--instr-atstart=no',
    `--callgrind-out-file=${outPrefix}.%p`,
  ];
  const running = await target.start(wrapper);
  const env = vgdbEnvironment(running.pid);
  const control = (...command: string[]) =>
    execFileSync('callgrind_control', [...command, String(running.pid)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const load = { urls: [running.base], connections: CONNECTIONS, path: setup.path };
    const headers = { authorization: `Bearer ${setup.key}` };
    const read = async (amount: number) => {
      const result = await runLoad({ ...load, headers, amount });
      if ((result.statuses['200'] ?? 0) !== result.requests)
        throw new Error(`${target.name}: not every answer was 200 (${JSON.stringify(result.statuses)})`);
      return result;
    };
    await read(warm);
    const perRead: number[] = [];
    // One window more than reported: the first counted window runs about a third high for
    // every target, after 20,000 warm-up reads as after 30,000, and is dropped.
    for (let window = 1; window <= WINDOWS + 1; window++) {
      control('--instr=on');
      control('--zero');
      const counted = await read(measure);
      control('--instr=off');
      control('--dump');
      if (window > 1)
        perRead.push(dumpedInstructions(dir, `${target.name}.${running.pid}.`, window) / counted.requests);
    }
    return perRead;
  } finally {
    await running.stop();
  }
}

interface Row {
  target: Target;
  /** Instructions per read over all the windows (their mean: a collection is part of the cost). */
  perRequest: number;
  windows: number[];
}

function table(rows: Row[]): string {
  const bare = rows.find((row) => row.target.name === 'bare')?.perRequest;
  const lean = rows.find((row) => row.target.name === 'lean')?.perRequest;
  const lines = [
    '| target | instructions per read | each window | ÷ bare | saved against the lean reference |',
    '|---|---|---|---|---|',
  ];
  const thousands = (n: number) => Math.round(n).toLocaleString('en');
  for (const { target, perRequest, windows } of rows) {
    const overBare = bare === undefined ? '' : (perRequest / bare).toFixed(2);
    const saved = lean === undefined || !target.name.startsWith('lean-') ? '' : thousands(lean - perRequest);
    lines.push(
      `| ${target.label} | ${thousands(perRequest)} | ${windows.map(thousands).join(', ')} | ${overBare} | ${saved} |`,
    );
  }
  return lines.join('\n');
}

try {
  execFileSync('valgrind', ['--version']);
} catch {
  console.error('bench:instructions needs valgrind (apt-get install -y valgrind).');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'marquee-bench-instructions-'));
const scratch = await createScratchDb('instructions');
try {
  const setup = await setUp(dir, scratch.url);
  const rows: Row[] = [];
  for (const target of targets(setup)) {
    if (only && !only.has(target.name)) continue;
    const windows = await countTarget(target, setup, dir);
    const perRequest = windows.reduce((sum, n) => sum + n, 0) / windows.length;
    console.log(`instructions: ${target.name} ${windows.map(Math.round).join(', ')} per read`);
    rows.push({ target, perRequest, windows });
  }
  const report = [
    '# Instructions per read',
    '',
    `GET /v1/events/{id}, ${CONNECTIONS} connections; ${warm.toLocaleString('en')} reads and one window of ${measure.toLocaleString('en')} to warm up, then ` +
      `${WINDOWS} windows of ${measure.toLocaleString('en')} counted by callgrind (\`npm run bench:instructions\`, bench/instructions.ts). ` +
      'User-space instructions of every thread of the server process; the kernel is not counted.',
    '',
    table(rows),
    '',
  ].join('\n');
  console.log(report);
  if (!only) writeFileSync(join(ROOT, 'bench', 'results.instructions.md'), report);
} finally {
  await scratch.drop();
  rmSync(dir, { recursive: true, force: true });
}
