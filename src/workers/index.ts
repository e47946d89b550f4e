/**
 * The background side of Marquee (ROLE=worker or all): webhook delivery, e-mail jobs
 * and periodic purges. Each job is a loop that claims due rows from the database, so any
 * number of worker processes can run side by side. WORKER_JOBS chooses which kinds of job
 * a process runs. Add a job by adding it to `jobsByKind`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config, WorkerJobKind } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import { emailJob } from './email-job.ts';
import type { Resolver } from '../domain/webhooks/url-vetting.ts';
import { webhookDeliveryJob } from './webhook-delivery.ts';
import { retentionPurgeJob } from './retention-purge.ts';
import { idempotencyPurgeJob } from './idempotency-purge.ts';

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

/** Each WORKER_JOBS kind and the jobs it starts. */
const jobsByKind: Record<WorkerJobKind, JobFactory[]> = {
  webhooks: [webhookDeliveryJob],
  email: [emailJob],
  purge: [retentionPurgeJob, idempotencyPurgeJob],
};

export interface Workers {
  /** The names of the jobs started, in start order. */
  jobs: string[];
  stop(): Promise<void>;
}

export function startWorkers(deps: WorkerDeps): Workers {
  const running = deps.config.workerJobs.flatMap((kind) => jobsByKind[kind]).map((start) => start(deps));
  deps.logger.info({ jobs: running.map((job) => job.name) }, 'workers started');
  return {
    jobs: running.map((job) => job.name),
    async stop() {
      await Promise.all(running.map((job) => job.stop()));
    },
  };
}
