/**
 * The contract between the worker runner (src/workers/index.ts) and the jobs it starts:
 * what a job is given and what it hands back. Jobs live with their capability
 * (src/webhooks/pump.ts, src/mail/worker.ts) or in src/workers/ (the purges).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Clock } from './lib/clock.ts';
import type { Resolver } from './webhooks/url-vetting.ts';

export interface WorkerDeps {
  config: Readonly<Config>;
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** DNS for webhook URL vetting at send time; omitted means the system resolver. */
  webhookResolver?: Resolver;
  /** CAs trusted by the webhook sender instead of the system's (tests' self-signed receiver). */
  webhookCa?: string | Buffer | Array<string | Buffer>;
  /** How long an idle delivery worker waits before claiming again (default 200 ms; tests). */
  webhookPollIntervalMs?: number;
}

interface RunningJob {
  name: string;
  /** Stop claiming new work and wait for the work in hand to finish. */
  stop(): Promise<void>;
}

export type JobFactory = (deps: WorkerDeps) => RunningJob;
