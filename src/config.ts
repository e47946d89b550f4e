/**
 * Configuration (operations.md section 2): read once from the environment (and a
 * `.env` file if present), validated, frozen. An invalid value stops the process with
 * a message that names the variable.
 */
import { existsSync } from 'node:fs';
import { DEFAULT_POOL_SIZE } from './db/client.ts';

export type Role = 'api' | 'worker' | 'all';

/**
 * The background jobs a worker process can run (WORKER_JOBS, beyond operations.md): e-mail
 * rendering is CPU-heavy (a QR PNG per ticket), so a deployment can give webhook delivery
 * processes of its own and let others render mail. `purge` is the retention and
 * idempotency-key purges.
 */
export const WORKER_JOB_KINDS = ['webhooks', 'email', 'purge'] as const;
export type WorkerJobKind = (typeof WORKER_JOB_KINDS)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  role: Role;
  workerJobs: readonly WorkerJobKind[];
  smtpUrl: string | undefined;
  mailFrom: string;
  webhookAllowLoopback: boolean;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  rateLimits: { preauth: number; read: number; write: number };
  trustProxy: boolean;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
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

function read(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = read(env, name, String(fallback));
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${text}".`);
  }
  return Number(text);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const text = read(env, name, String(fallback)).toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${text}".`);
}

function duration(env: Env, name: string, fallback: string): number {
  const text = read(env, name, fallback);
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) throw new ConfigError(name, `must be a duration like 50ms, 2s, 10m or 1h, got "${text}".`);
  return ms;
}

function workerJobs(env: Env): readonly WorkerJobKind[] {
  const text = read(env, 'WORKER_JOBS', WORKER_JOB_KINDS.join(','));
  const kinds = text.split(',').map((part) => part.trim());
  for (const kind of kinds) {
    if (!(WORKER_JOB_KINDS as readonly string[]).includes(kind)) {
      throw new ConfigError('WORKER_JOBS', `must be a comma-separated list of ${WORKER_JOB_KINDS.join(', ')}, got "${kind}".`);
    }
  }
  return Object.freeze([...new Set(kinds as WorkerJobKind[])]);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const text = optional(env, name);
  if (text === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new ConfigError(name, 'must be a URL.');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}.`);
  }
  return text;
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const role = read(env, 'ROLE', 'all');
  if (role !== 'api' && role !== 'worker' && role !== 'all') {
    throw new ConfigError('ROLE', `must be api, worker or all, got "${role}".`);
  }
  const delays = read(env, 'WEBHOOK_RETRY_DELAYS', '30s,2m,10m,1h,6h,24h').split(',').map((part) => {
    const ms = parseDuration(part);
    if (ms === undefined) throw new ConfigError('WEBHOOK_RETRY_DELAYS', `must be a comma-separated list of durations like 30s,2m,10m, got "${part}".`);
    return ms;
  });
  const adminToken = optional(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters.');
  }
  const logLevel = read(env, 'LOG_LEVEL', 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}".`);
  }
  return Object.freeze({
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: read(env, 'HOST', '127.0.0.1'),
    dataDir: read(env, 'DATA_DIR', './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    adminToken,
    role,
    workerJobs: workerJobs(env),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: read(env, 'MAIL_FROM', 'Marquee <no-reply@localhost>'),
    webhookAllowLoopback: boolean(env, 'WEBHOOK_ALLOW_LOOPBACK', false),
    webhookRetryDelaysMs: delays,
    webhookTimeoutMs: duration(env, 'WEBHOOK_TIMEOUT', '15s'),
    rateLimits: Object.freeze({
      preauth: integer(env, 'RATE_LIMIT_PREAUTH_PER_MIN', 600, 1, 10_000_000),
      read: integer(env, 'RATE_LIMIT_READ_PER_MIN', 300, 1, 10_000_000),
      write: integer(env, 'RATE_LIMIT_WRITE_PER_MIN', 60, 1, 10_000_000),
    }),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    logLevel,
  });
}

/** Reads `.env` into process.env (variables already set win), as operations.md promises. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
