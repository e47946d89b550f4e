/**
 * The background side of Marquee (ROLE=worker or all): webhook delivery, e-mail jobs
 * and periodic purges. Each job is a loop that claims due rows from the database, so any
 * number of worker processes can run side by side. WORKER_JOBS chooses which kinds of job
 * a process runs. Add a job by adding it to `jobsByKind`.
 */
import type { WorkerJobKind } from '../config.ts';
import type { JobFactory, WorkerDeps } from '../background-job.ts';
import { emailJob } from '../mail/worker.ts';
import { webhookDeliveryJob, type WebhookJobOptions } from '../webhooks/pump.ts';
import { retentionPurgeJob } from './retention-purge.ts';
import { idempotencyPurgeJob } from './idempotency-purge.ts';

/** Each WORKER_JOBS kind and the jobs it starts; the webhook job with its options. */
function jobsByKind(webhooks: WebhookJobOptions): Record<WorkerJobKind, JobFactory[]> {
  return {
    webhooks: [(deps) => webhookDeliveryJob({ ...deps, ...webhooks })],
    email: [emailJob],
    purge: [retentionPurgeJob, idempotencyPurgeJob],
  };
}

export interface Workers {
  /** The names of the jobs started, in start order. */
  jobs: string[];
  stop(): Promise<void>;
}

/** Starts the jobs of WORKER_JOBS. `options.webhooks` is for tests (DNS, CAs, the poll); main.ts passes none. */
export function startWorkers(deps: WorkerDeps, options: { webhooks?: WebhookJobOptions } = {}): Workers {
  const jobs = jobsByKind(options.webhooks ?? {});
  const running = deps.config.workerJobs.flatMap((kind) => jobs[kind]).map((start) => start(deps));
  deps.logger.info({ jobs: running.map((job) => job.name) }, 'workers started');
  return {
    jobs: running.map((job) => job.name),
    async stop() {
      await Promise.all(running.map((job) => job.stop()));
    },
  };
}
