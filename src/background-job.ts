/**
 * The contract between the worker runner (src/workers/index.ts) and the jobs it starts:
 * what every job is given and what it hands back. Jobs live with their capability
 * (src/webhooks/pump.ts, src/mail/worker.ts) or in src/workers/ (the purges); what only
 * one kind of job takes is that job's own (the webhook job's WebhookJobOptions).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { Clock } from './lib/clock.ts';

export interface WorkerDeps {
  config: Readonly<Config>;
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
}

export interface RunningJob {
  name: string;
  /** Stop claiming new work and wait for the work in hand to finish. */
  stop(): Promise<void>;
}

export type JobFactory = (deps: WorkerDeps) => RunningJob;
