/**
 * Marquee as real child processes, as production runs it: the compiled build with the
 * Node flags of `npm start` (`node <flags> scripts/start.mjs`, dist/; `node --import tsx
 * src/main.ts` for a baseline tree from before the build existed). A fixed free port,
 * LOG_LEVEL=warn (so no per-request logging), raised rate limits; ready when /healthz
 * answers (API) or when the worker logs "workers started". Also the bench's HTTP client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const HIGH_LIMIT = '10000000';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface MarqueeProcess {
  role: 'api' | 'worker' | 'all';
  pid: number;
  /** http://127.0.0.1:PORT (no /v1); empty for a worker. */
  base: string;
  /** Milliseconds from spawn to ready. */
  startMs: number;
  child: ChildProcess;
  /** Peak resident set size so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  /** Resident set size now (VmRSS), in MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
  output(): string;
}

interface StartOptions {
  role?: 'api' | 'worker' | 'all';
  databaseUrl?: string;
  dataDir?: string;
  env?: Record<string, string>;
  /** Write a V8 CPU profile of this process into the directory on exit. */
  cpuProfDir?: string;
  /** Another copy of the code to run (a baseline commit); default: this tree. */
  root?: string;
  /** Modules loaded before src/main.ts (`--import`), e.g. a bench probe. */
  preload?: string[];
  /** The API's port (a load balancer's fixed backend); default a free one. */
  port?: number;
  /** A command the process runs under (a profiler such as valgrind), with its arguments. */
  wrapper?: string[];
  /** Node flags beside those of `npm start`. */
  nodeFlags?: string[];
  /** How long the start may take; default 60 s. */
  readyTimeoutMs?: number;
}

/** The Node flags `npm start` passes (package.json), so the bench runs what users run. */
function startFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  return (pkg.scripts?.start ?? '').split(/\s+/).filter((word) => word.startsWith('--'));
}

export async function startMarquee(opts: StartOptions): Promise<MarqueeProcess> {
  const role = opts.role ?? 'all';
  const port = role === 'worker' ? 0 : (opts.port ?? (await freePort()));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'production',
    ROLE: role,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    LOG_LEVEL: role === 'worker' ? 'info' : 'warn',
    RATE_LIMIT_PREAUTH_PER_MIN: HIGH_LIMIT,
    RATE_LIMIT_READ_PER_MIN: HIGH_LIMIT,
    RATE_LIMIT_WRITE_PER_MIN: HIGH_LIMIT,
    // Every load-generator connection comes from 127.0.0.1: lift the per-address cap
    // (default 256) well above the largest run, which still exercises its counting.
    HTTP_MAX_CONNECTIONS_PER_IP: '4096',
    // No balancer watches these processes: stop at once (rollingrestart sets a drain period).
    SHUTDOWN_DRAIN_PERIOD: '0s',
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    DATA_DIR: opts.dataDir ?? '/tmp/marquee-bench-data',
    ...opts.env,
  };
  // scripts/start.mjs builds dist/ first if a source is newer (bench/run.ts builds before
  // any scenario, so no start measured here includes a build).
  const compiled = existsSync(join(opts.root ?? ROOT, 'scripts', 'start.mjs'));
  const args = [...(opts.nodeFlags ?? []), ...(compiled ? startFlags(opts.root ?? ROOT) : ['--import', 'tsx'])];
  for (const module of opts.preload ?? []) args.push('--import', module);
  if (opts.cpuProfDir) args.push('--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`);
  args.push(compiled ? 'scripts/start.mjs' : 'src/main.ts');
  const started = performance.now();
  const command = [...(opts.wrapper ?? []), process.execPath, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: opts.root ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const pid = child.pid!;
  const base = role === 'worker' ? '' : `http://127.0.0.1:${port}`;

  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const deadline = Date.now() + readyTimeoutMs;
  let ready = false;
  let dead = false;
  void exited.then(() => {
    dead = true;
  });
  while (!ready) {
    if (dead) throw new Error(`Marquee (${role}) exited during start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Marquee (${role}) did not become ready in ${readyTimeoutMs / 1000} s:\n${output}`);
    }
    if (role === 'worker') {
      ready = output.includes('workers started');
    } else {
      try {
        const res = await request(`${base}/healthz`);
        await res.body.dump();
        ready = res.statusCode === 200;
      } catch {
        /* not listening yet */
      }
    }
    if (!ready) await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - started;

  return {
    role,
    pid,
    base,
    startMs,
    child,
    output: () => output,
    peakRssMiB: () => statusMiB(pid, 'VmHWM'),
    rssMiB: () => statusMiB(pid, 'VmRSS'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

interface JsonResponse<T = any> {
  status: number;
  body: T;
}

/** One JSON request (bench setup and checks, not load). */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  auth: string,
  body?: unknown,
): Promise<JsonResponse<T>> {
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

export async function mustCall<T = any>(
  base: string,
  method: string,
  path: string,
  auth: string,
  body?: unknown,
  expected = [200, 201],
): Promise<T> {
  const res = await call<T>(base, method, path, auth, body);
  if (!expected.includes(res.status))
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An organizer and a read+write key through the admin API. */
export async function createOrganizerWithKey(
  base: string,
  name = 'Bench Organizer',
): Promise<{ organizerId: string; key: string }> {
  const org = await mustCall<{ id: string }>(base, 'POST', '/admin/v1/organizers', ADMIN_TOKEN, {
    name,
    currency: 'EUR',
    timezone: 'UTC',
  });
  const key = await mustCall<{ key: string }>(base, 'POST', `/admin/v1/organizers/${org.id}/api_keys`, ADMIN_TOKEN, {
    name: 'bench',
    scopes: ['read', 'write'],
  });
  return { organizerId: org.id, key: key.key };
}

export interface EventShape {
  id: string;
  ticket_types: { id: string; name: string; prices: { performance_id: string; limited_quantity: number | null }[] }[];
}

export async function createEvent(
  base: string,
  key: string,
  opts: {
    performances: number;
    capacity: number;
    ticketTypes: { name: string; price_minor: number; quantity: number | null }[];
    title?: string;
  },
): Promise<EventShape> {
  const start = Date.UTC(2031, 0, 1, 19, 0, 0);
  return mustCall<EventShape>(base, 'POST', '/v1/events', key, {
    title: opts.title ?? `Bench Event ${Math.random().toString(36).slice(2, 10)}`,
    description: '<p>An evening of <strong>benchmarks</strong>.</p>',
    venue: { name: 'Bench Hall' },
    category_name: 'Concerts',
    performances: Array.from({ length: opts.performances }, (_, i) => ({
      starts_at: new Date(start + i * 86_400_000).toISOString(),
      capacity: opts.capacity,
      title: `Night ${i + 1}`,
    })),
    ticket_types: opts.ticketTypes,
  });
}

/** A memory figure of /proc/PID/status (kB there), in MiB; NaN once the process is gone. */
function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}
