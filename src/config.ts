/**
 * Configuration (README, Configuration): read once from the environment (and a
 * `.env` file if present), validated, frozen. An invalid value stops the process with
 * a message that names the variable.
 */
import { existsSync } from 'node:fs';
import { parseSecretsKey } from './lib/secret-box.ts';

type Role = 'api' | 'worker' | 'all';

/**
 * The background jobs a worker process can run (WORKER_JOBS): e-mail
 * rendering is CPU-heavy (a QR PNG per ticket), so a deployment can give webhook delivery
 * processes of its own and let others render mail. `purge` is the retention and
 * idempotency-key purges.
 */
const WORKER_JOB_KINDS = ['webhooks', 'email', 'purge'] as const;
export type WorkerJobKind = (typeof WORKER_JOB_KINDS)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** How long a start waits for another process to release DATA_DIR (embedded database only). */
  dataDirLockWaitMs: number;
  databaseUrl: string | undefined;
  /**
   * DATABASE_DIRECT_URL: PostgreSQL itself when DATABASE_URL is a transaction pooler
   * (docs/deploy.md, "PgBouncer"); LISTEN, the endpoint guard and migrations use it.
   */
  databaseDirectUrl: string | undefined;
  databasePoolSize: number;
  /** How long a query waits for a free database connection before it answers 503. */
  databaseAcquireTimeoutMs: number;
  /** PostgreSQL statement_timeout of every pooled connection. */
  databaseStatementTimeoutMs: number;
  /** PostgreSQL lock_timeout of every pooled connection. */
  databaseLockTimeoutMs: number;
  /**
   * DATABASE_REPLICA_URL: a streaming replica of DATABASE_URL that replica-routed GETs read
   * from while it keeps up (docs/deploy.md, "A read replica"); undefined: every read on the primary.
   */
  databaseReplicaUrl: string | undefined;
  /** DATABASE_REPLICA_MAX_LAG: a replica further behind than this serves no read. */
  databaseReplicaMaxLagMs: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  role: Role;
  workerJobs: readonly WorkerJobKind[];
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Most SMTP connections open at once; also how many orders' mails are in flight. */
  smtpMaxConnections: number;
  /** Messages one SMTP connection carries before it is replaced. */
  smtpMaxMessages: number;
  /** Worker threads that render and compose mails (docs/orders.md, "E-mail"). */
  mailRenderThreads: number;
  webhookAllowLoopback: boolean;
  /** Lets plain http:// through to loopback addresses; development only (docs/webhooks.md, "Local development"). */
  webhookAllowInsecureLoopback: boolean;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  /** Endpoints one organizer may have at once (docs/webhooks.md, "Fair delivery"). */
  webhookMaxEndpointsPerOrganizer: number;
  /** Sends one worker has in flight at once to one organizer's endpoints (docs/webhooks.md, "Fair delivery"). */
  webhookMaxInFlightPerOrganizer: number;
  rateLimits: { preauth: number; read: number; write: number; signin_account: number; signin_ip: number };
  /** The people of an organizer and their sessions (docs/dashboard.md, "Settings"). */
  sessions: SessionSettings;
  /**
   * PUBLIC_URL: the origin people reach the service at, default http://HOST:PORT. Links in
   * e-mails are built from it, never from a request's Host header (which a caller chooses).
   */
  publicUrl: string;
  trustProxy: boolean;
  logLevel: string;
  /** JSON lines, human-readable lines, or `auto`: readable on a terminal, JSON otherwise. */
  logFormat: LogFormat;
  /**
   * IDEMPOTENCY_LEASE: how long an idempotency key stays "in flight" on PostgreSQL without
   * a heartbeat from the request holding it, i.e. how long a retry waits (409) after the
   * process executing the first request died (docs/idempotency.md, Lease).
   */
  idempotencyLeaseMs: number;
  /**
   * TEST_HOLD_IDEMPOTENT_REQUESTS, a test hook: every idempotent request waits this long
   * inside its transaction before its handler, so a test can kill the process mid-request.
   * Refused unless NODE_ENV=test.
   */
  testHoldIdempotentRequestsMs: number | undefined;
  /**
   * SHUTDOWN_DRAIN_PERIOD: after SIGTERM/SIGINT, how long an API process answers /readyz
   * 503 and keeps serving (each response with `Connection: close`) before it stops
   * accepting, so a load balancer's health check moves traffic away first (docs/deploy.md,
   * "Rolling restarts behind a load balancer"). 0 stops accepting at once; on the embedded
   * database main.ts never drains.
   */
  shutdownDrainPeriodMs: number;
  /** Bounds on what one client can hold of the HTTP server (docs/operations.md, "Slow and greedy clients"). */
  http: HttpLimits;
  /** METRICS_PORT: the Prometheus listener's port (docs/operations.md, "Metrics"); undefined: no metrics. */
  metricsPort: number | undefined;
  /** METRICS_HOST: the address the metrics listener binds. */
  metricsHost: string;
  /** CONSOLE_ENABLED: serve the organizer console at /app/ (docs/console.md). */
  consoleEnabled: boolean;
  /** AUDIT_LOG_RETENTION_DAYS: how long audit log entries are kept (docs/dashboard.md, "Audit log"). */
  auditLogRetentionDays: number;
  /** WALLET_SECRETS_KEY: seals organizers' wallet signing keys at rest (docs/tickets.md); unset: no wallet can be configured. */
  walletSecretsKey: Buffer | undefined;
}

export interface SessionSettings {
  /** SESSION_IDLE_TIMEOUT: a session with no request for this long ends. */
  idleTimeoutMs: number;
  /** SESSION_ABSOLUTE_TIMEOUT: a session ends this long after sign-in, whatever its use. */
  absoluteTimeoutMs: number;
}

export interface HttpLimits {
  /** HTTP_REQUEST_TIMEOUT: the whole request, headers and body, must arrive within this. */
  requestTimeoutMs: number;
  /** HTTP_HEADERS_TIMEOUT: the request line and headers must arrive within this (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT: an idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** HTTP_IDLE_TIMEOUT: a connection on which no byte moves either way for this long is closed. */
  idleTimeoutMs: number;
  /** HTTP_MAX_CONNECTIONS: open connections of the process, all clients together. */
  maxConnections: number;
  /** HTTP_MAX_CONNECTIONS_PER_IP: open connections per remote address; 0 means no per-address cap. */
  maxConnectionsPerIp: number;
  /** HTTP_MAX_HEADER_SIZE: bytes of request line and headers together; more answers 431. */
  maxHeaderBytes: number;
}

/** One invalid variable: its name and what is wrong with it. */
interface ConfigProblem {
  variable: string;
  message: string;
}

/**
 * Every invalid variable of one start, reported together so an operator fixes them all
 * in one go. With one problem the message is a single line naming the variable.
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    const lines = problems.map((p) => `${p.variable} ${p.message}`);
    super(
      lines.length === 1 ? `Invalid configuration: ${lines[0]}` : `Invalid configuration:\n  ${lines.join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }

  /** The first variable named (the only one when there is one problem). */
  get variable(): string {
    return this.problems[0]?.variable ?? '';
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `50ms`, `2s`, `10m`, `1h`, `1d` into milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_UNITS[match[2]!]!;
}

type Env = Record<string, string | undefined>;

/**
 * Reads typed values from the environment and collects every invalid one instead of
 * stopping at the first: a reader returns the default for a bad value and records the
 * problem; loadConfig() throws them all at the end.
 */
class EnvReader {
  readonly problems: ConfigProblem[] = [];

  constructor(private readonly env: Env) {}

  invalid(variable: string, message: string): void {
    this.problems.push({ variable, message });
  }

  text(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  optional(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const text = this.text(name, String(fallback));
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      this.invalid(name, `must be an integer from ${min} to ${max}, got "${text}".`);
      return fallback;
    }
    return Number(text);
  }

  boolean(name: string, fallback: boolean): boolean {
    const text = this.text(name, String(fallback)).toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    this.invalid(name, `must be true or false, got "${text}".`);
    return fallback;
  }

  /** A duration like `2s`; `fallback` is written the same way; `min` likewise, if given (`0s` allows zero). */
  duration(name: string, fallback: string, min?: string): number {
    const text = this.text(name, fallback);
    const ms = parseDuration(text);
    if (ms === undefined || (ms <= 0 && !(min !== undefined && parseDuration(min) === 0))) {
      this.invalid(name, `must be a duration like 50ms, 2s, 10m or 1h, got "${text}".`);
      return parseDuration(fallback)!;
    }
    if (min !== undefined && ms < parseDuration(min)!) {
      this.invalid(name, `must be at least ${min}, got "${text}".`);
      return parseDuration(fallback)!;
    }
    return ms;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[], wording: string): T {
    const text = this.text(name, fallback);
    if (!(allowed as readonly string[]).includes(text)) {
      this.invalid(name, `must be ${wording}, got "${text}".`);
      return fallback;
    }
    return text as T;
  }

  url(name: string, protocols: string[]): string | undefined {
    const text = this.optional(name);
    if (text === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      this.invalid(name, 'must be a URL.');
      return undefined;
    }
    if (!protocols.includes(parsed.protocol)) {
      this.invalid(name, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}.`);
      return undefined;
    }
    return text;
  }
}

function workerJobs(read: EnvReader): readonly WorkerJobKind[] {
  const text = read.text('WORKER_JOBS', WORKER_JOB_KINDS.join(','));
  const kinds = text.split(',').map((part) => part.trim());
  const unknown = kinds.find((kind) => !(WORKER_JOB_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined) {
    read.invalid('WORKER_JOBS', `must be a comma-separated list of ${WORKER_JOB_KINDS.join(', ')}, got "${unknown}".`);
    return WORKER_JOB_KINDS;
  }
  return Object.freeze([...new Set(kinds as WorkerJobKind[])]);
}

const DEFAULT_RETRY_DELAYS = '30s,2m,10m,1h,6h,24h';

function retryDelays(read: EnvReader): number[] {
  const parts = read.text('WEBHOOK_RETRY_DELAYS', DEFAULT_RETRY_DELAYS).split(',');
  const bad = parts.find((part) => parseDuration(part) === undefined);
  if (bad !== undefined) {
    read.invalid('WEBHOOK_RETRY_DELAYS', `must be a comma-separated list of durations like 30s,2m,10m, got "${bad}".`);
    return DEFAULT_RETRY_DELAYS.split(',').map((part) => parseDuration(part)!);
  }
  return parts.map((part) => parseDuration(part)!);
}

function httpLimits(read: EnvReader): HttpLimits {
  const limits: HttpLimits = {
    requestTimeoutMs: read.duration('HTTP_REQUEST_TIMEOUT', '30s'),
    headersTimeoutMs: read.duration('HTTP_HEADERS_TIMEOUT', '10s'),
    keepAliveTimeoutMs: read.duration('HTTP_KEEP_ALIVE_TIMEOUT', '5s'),
    idleTimeoutMs: read.duration('HTTP_IDLE_TIMEOUT', '60s'),
    maxConnections: read.integer('HTTP_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    maxConnectionsPerIp: read.integer('HTTP_MAX_CONNECTIONS_PER_IP', 256, 0, 1_000_000),
    maxHeaderBytes: read.integer('HTTP_MAX_HEADER_SIZE', 16_384, 1024, 1_048_576),
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    read.invalid(
      'HTTP_HEADERS_TIMEOUT',
      `must not be longer than HTTP_REQUEST_TIMEOUT (${limits.requestTimeoutMs} ms), got ${limits.headersTimeoutMs} ms.`,
    );
  }
  return Object.freeze(limits);
}

/** The test hook TEST_HOLD_IDEMPOTENT_REQUESTS, only ever honoured when NODE_ENV=test. */
function testHoldIdempotentRequests(read: EnvReader, env: Env): number | undefined {
  if (read.optional('TEST_HOLD_IDEMPOTENT_REQUESTS') === undefined) return undefined;
  if (env.NODE_ENV !== 'test') {
    read.invalid('TEST_HOLD_IDEMPOTENT_REQUESTS', 'is a test hook and is refused unless NODE_ENV=test.');
    return undefined;
  }
  return read.duration('TEST_HOLD_IDEMPOTENT_REQUESTS', '1s');
}

/**
 * METRICS_PORT: unset (or empty) serves no metrics; `0` lets the system choose a port (tests).
 * An API process cannot serve its metrics on its API port (the metrics never share the
 * public surface).
 */
function metricsPort(read: EnvReader, apiPort: number, role: Role): number | undefined {
  if (read.optional('METRICS_PORT') === undefined) return undefined;
  const port = read.integer('METRICS_PORT', 0, 0, 65535);
  if (port !== 0 && port === apiPort && role !== 'worker')
    read.invalid('METRICS_PORT', `must differ from PORT (${apiPort}): the metrics have a port of their own.`);
  return port;
}

/** WEBHOOK_ALLOW_INSECURE_LOOPBACK only widens WEBHOOK_ALLOW_LOOPBACK, never stands alone. */
function insecureLoopback(read: EnvReader): boolean {
  const insecure = read.boolean('WEBHOOK_ALLOW_INSECURE_LOOPBACK', false);
  if (insecure && !read.boolean('WEBHOOK_ALLOW_LOOPBACK', false)) {
    read.invalid(
      'WEBHOOK_ALLOW_INSECURE_LOOPBACK',
      'needs WEBHOOK_ALLOW_LOOPBACK=true: it only lets plain http:// through to loopback addresses.',
    );
    return false;
  }
  return insecure;
}

type LogFormat = 'auto' | 'json' | 'pretty';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function adminToken(read: EnvReader): string | undefined {
  const token = read.optional('ADMIN_TOKEN');
  if (token !== undefined && token.length < 16) read.invalid('ADMIN_TOKEN', 'must be at least 16 characters.');
  return token;
}

function walletSecretsKey(read: EnvReader): Buffer | undefined {
  const text = read.optional('WALLET_SECRETS_KEY');
  if (text === undefined) return undefined;
  const key = parseSecretsKey(text);
  if (!key)
    read.invalid('WALLET_SECRETS_KEY', 'must be 32 bytes as base64 or as 64 hex digits (openssl rand -base64 32).');
  return key;
}

/**
 * DATABASE_POOL_SIZE's default: connections per process. Small on purpose: an on-sale
 * funnels every sale through one performance row lock, and every backend waiting on it
 * takes CPU from the one holding it, so more connections sell slower, not faster
 * (bench/README.md).
 */
export const DEFAULT_POOL_SIZE = 10;

/** Defaults of DATABASE_ACQUIRE_TIMEOUT, DATABASE_STATEMENT_TIMEOUT and DATABASE_LOCK_TIMEOUT. */
const DEFAULT_DATABASE_TIMEOUTS = Object.freeze({ acquire: '5s', statement: '30s', lock: '10s' });

/** DATABASE_REPLICA_URL is a replica of DATABASE_URL's database, never of the embedded one. */
function readReplica(read: EnvReader): Pick<Config, 'databaseReplicaUrl' | 'databaseReplicaMaxLagMs'> {
  const url = read.url('DATABASE_REPLICA_URL', ['postgres:', 'postgresql:']);
  if (url !== undefined && read.optional('DATABASE_URL') === undefined)
    read.invalid('DATABASE_REPLICA_URL', 'needs DATABASE_URL: it is a replica of that PostgreSQL database.');
  return { databaseReplicaUrl: url, databaseReplicaMaxLagMs: read.duration('DATABASE_REPLICA_MAX_LAG', '5s') };
}

/** DATABASE_URL, and DATABASE_DIRECT_URL, which only means something beside it (docs/deploy.md, "PgBouncer"). */
function databaseUrls(read: EnvReader): Pick<Config, 'databaseUrl' | 'databaseDirectUrl'> {
  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseDirectUrl = read.url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']);
  if (databaseDirectUrl !== undefined && databaseUrl === undefined)
    read.invalid('DATABASE_DIRECT_URL', 'needs DATABASE_URL: it is the direct way to the database behind a pooler.');
  return { databaseUrl, databaseDirectUrl };
}

/** Reads and validates every variable; throws one ConfigError listing all invalid ones. */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const read = new EnvReader(env);
  const role = read.oneOf<Role>('ROLE', 'all', ['api', 'worker', 'all'], 'api, worker or all');
  const port = read.integer('PORT', 3000, 0, 65535);
  const config: Config = {
    port,
    host: read.text('HOST', '127.0.0.1'),
    dataDir: read.text('DATA_DIR', './data'),
    // Longer than the 20 s drain of a stopping predecessor, so an overlapping restart waits
    // it out (on the embedded database there is no drain period before it).
    dataDirLockWaitMs: read.duration('DATA_DIR_LOCK_WAIT', '25s'),
    ...databaseUrls(read),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    databaseAcquireTimeoutMs: read.duration('DATABASE_ACQUIRE_TIMEOUT', DEFAULT_DATABASE_TIMEOUTS.acquire),
    databaseStatementTimeoutMs: read.duration('DATABASE_STATEMENT_TIMEOUT', DEFAULT_DATABASE_TIMEOUTS.statement),
    databaseLockTimeoutMs: read.duration('DATABASE_LOCK_TIMEOUT', DEFAULT_DATABASE_TIMEOUTS.lock),
    ...readReplica(read),
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    adminToken: adminToken(read),
    role,
    workerJobs: workerJobs(read),
    smtpUrl: read.url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: read.text('MAIL_FROM', 'Marquee <no-reply@localhost>'),
    smtpMaxConnections: read.integer('SMTP_MAX_CONNECTIONS', 4, 1, 100),
    smtpMaxMessages: read.integer('SMTP_MAX_MESSAGES', 100, 1, 100_000),
    mailRenderThreads: read.integer('MAIL_RENDER_THREADS', 1, 1, 64),
    webhookAllowLoopback: read.boolean('WEBHOOK_ALLOW_LOOPBACK', false),
    webhookAllowInsecureLoopback: insecureLoopback(read),
    webhookRetryDelaysMs: retryDelays(read),
    webhookTimeoutMs: read.duration('WEBHOOK_TIMEOUT', '15s'),
    webhookMaxEndpointsPerOrganizer: read.integer('WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZER', 20, 1, 1000),
    webhookMaxInFlightPerOrganizer: read.integer('WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZER', 16, 1, 64),
    rateLimits: Object.freeze({
      preauth: read.integer('RATE_LIMIT_PREAUTH_PER_MIN', 600, 1, 10_000_000),
      read: read.integer('RATE_LIMIT_READ_PER_MIN', 300, 1, 10_000_000),
      write: read.integer('RATE_LIMIT_WRITE_PER_MIN', 60, 1, 10_000_000),
      signin_account: read.integer('RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN', 10, 1, 10_000_000),
      signin_ip: read.integer('RATE_LIMIT_SIGNIN_IP_PER_MIN', 30, 1, 10_000_000),
    }),
    sessions: Object.freeze({
      idleTimeoutMs: read.duration('SESSION_IDLE_TIMEOUT', '12h', '1m'),
      absoluteTimeoutMs: read.duration('SESSION_ABSOLUTE_TIMEOUT', '7d', '1m'),
    }),
    publicUrl: (
      read.url('PUBLIC_URL', ['http:', 'https:']) ?? `http://${read.text('HOST', '127.0.0.1')}:${port}`
    ).replace(/\/+$/, ''),
    trustProxy: read.boolean('TRUST_PROXY', false),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`),
    logFormat: read.oneOf<LogFormat>('LOG_FORMAT', 'auto', ['auto', 'json', 'pretty'], 'auto, json or pretty'),
    http: httpLimits(read),
    idempotencyLeaseMs: read.duration('IDEMPOTENCY_LEASE', '5s', '1s'),
    shutdownDrainPeriodMs: read.duration('SHUTDOWN_DRAIN_PERIOD', '5s', '0s'),
    testHoldIdempotentRequestsMs: testHoldIdempotentRequests(read, env),
    metricsPort: metricsPort(read, port, role),
    metricsHost: read.text('METRICS_HOST', '127.0.0.1'),
    consoleEnabled: read.boolean('CONSOLE_ENABLED', true),
    auditLogRetentionDays: read.integer('AUDIT_LOG_RETENTION_DAYS', 365, 1, 36_500),
    walletSecretsKey: walletSecretsKey(read),
  };
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return Object.freeze(config);
}

/** Reads `.env` into process.env (variables already set win), as operations.md promises. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
