/**
 * The e-mail worker: sends the receipt and e-ticket jobs that sales enqueue
 * (src/mail/jobs.ts holds the core, runEmailJobsOnce, which tests call
 * directly). It polls for due jobs; the mailer is built from configuration: SMTP_URL, or
 * `.eml` files under DATA_DIR/outbox. stop() stops claiming and waits for the pass in hand.
 */
import path from 'node:path';
import { runEmailJobsOnce } from './jobs.ts';
import { createRenderPool } from './render-pool.ts';
import { createMailer, type Mailer } from './transport.ts';
import type { JobFactory, WorkerDeps } from '../background-job.ts';

const EMAIL_POLL_INTERVAL_MS = 500;
/** Pause after a pass failed (the database unreachable or slow) before trying again. */
const EMAIL_FAILURE_PAUSE_MS = 1000;
/**
 * While jobs keep coming (a pass claimed some), the loop rests this many times as long as
 * the pass took before claiming again, so a backlog (an on-sale rush queues two mails per
 * order) leaves the API or the webhook job sharing the process a share of its time. A
 * pass mostly waits (render threads, SMTP, the database), so a quarter is enough.
 * Nothing about what is sent changes, only when.
 */
const EMAIL_BACKLOG_REST_RATIO = 0.25;
/** The rest never exceeds this, so a slow pass (a slow SMTP server) does not stall the queue. */
const EMAIL_BACKLOG_MAX_REST_MS = 1_000;

function createMailerFor(deps: WorkerDeps): Mailer {
  return createMailer({
    smtpUrl: deps.config.smtpUrl,
    from: deps.config.mailFrom,
    outboxDir: path.join(deps.config.dataDir, 'outbox'),
    clock: deps.clock,
    smtpMaxConnections: deps.config.smtpMaxConnections,
    smtpMaxMessages: deps.config.smtpMaxMessages,
  });
}

export const emailJob: JobFactory = (deps) => {
  const mailer = createMailerFor(deps);
  // Every mail renders in these threads, never on this event loop, whatever the ROLE.
  const renderer = createRenderPool({
    from: deps.config.mailFrom,
    threads: deps.config.mailRenderThreads,
    onError: (err) => deps.logger.error({ err }, 'mail render thread failed'),
  });
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const loop = (async () => {
    while (!stopping) {
      let claimed = 0;
      let failed = false;
      const started = performance.now();
      try {
        claimed = await runEmailJobsOnce({
          db: deps.db,
          mailer,
          renderer,
          clock: deps.clock,
          concurrency: deps.config.smtpMaxConnections,
          log: deps.logger,
          walletSecretsKey: deps.config.walletSecretsKey,
        });
      } catch (err) {
        // The database is down or slow: keep looping, after a longer pause.
        deps.logger.error({ err }, 'e-mail pass failed; retrying shortly');
        failed = true;
      }
      if (stopping) break;
      if (failed) await sleep(EMAIL_FAILURE_PAUSE_MS);
      else if (claimed === 0) await sleep(EMAIL_POLL_INTERVAL_MS);
      else await sleep(Math.min((performance.now() - started) * EMAIL_BACKLOG_REST_RATIO, EMAIL_BACKLOG_MAX_REST_MS));
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
      await renderer.close();
    },
  };
};
