/**
 * The e-mail worker: sends the receipt and e-ticket jobs that sales enqueue
 * (src/domain/mail/email-jobs.ts holds the core, runEmailJobsOnce, which tests call
 * directly). It polls for due jobs; the mailer is built from configuration: SMTP_URL, or
 * `.eml` files under DATA_DIR/outbox. stop() stops claiming and waits for the pass in hand.
 */
import path from 'node:path';
import { runEmailJobsOnce } from '../domain/mail/email-jobs.ts';
import { createMailer, type Mailer } from '../mail/transport.ts';
import type { JobFactory, WorkerDeps } from './index.ts';

export const EMAIL_POLL_INTERVAL_MS = 500;

export function createMailerFor(deps: WorkerDeps): Mailer {
  return createMailer({
    smtpUrl: deps.config.smtpUrl,
    from: deps.config.mailFrom,
    outboxDir: path.join(deps.config.dataDir, 'outbox'),
    clock: deps.clock,
  });
}

export const emailJob: JobFactory = (deps) => {
  const mailer = createMailerFor(deps);
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const loop = (async () => {
    while (!stopping) {
      let claimed = 0;
      try {
        claimed = await runEmailJobsOnce({
          db: deps.db,
          mailer,
          clock: deps.clock,
          onError: (err, job) => deps.logger.warn({ err, emailJobId: job.id, attempt: job.attempts }, 'e-mail attempt failed'),
        });
      } catch (err) {
        deps.logger.error({ err }, 'e-mail pass failed');
      }
      if (claimed > 0 || stopping) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, EMAIL_POLL_INTERVAL_MS);
      });
    }
  })();

  return {
    name: 'email',
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await loop;
      mailer.close();
    },
  };
};
