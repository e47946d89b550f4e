/**
 * The background side of Marquee (ROLE=worker or all): webhook delivery, e-mail jobs
 * and periodic purges. Each job is a loop that claims due rows from the database, so any
 * number of worker processes can run side by side. Add a job by adding it to `jobs`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import { emailJob } from './email-job.ts';

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

const jobs: JobFactory[] = [emailJob];

export interface Workers {
  stop(): Promise<void>;
}

export function startWorkers(deps: WorkerDeps): Workers {
  const running = jobs.map((start) => start(deps));
  deps.logger.info({ jobs: running.map((job) => job.name) }, 'workers started');
  return {
    async stop() {
      await Promise.all(running.map((job) => job.stop()));
    },
  };
}
