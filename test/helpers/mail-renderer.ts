/**
 * A MailRenderer that renders in the calling thread, for tests of the e-mail job whose
 * subject is not where rendering runs (the worker always uses the thread pool), and one
 * pass of the e-mail job into an outbox with it.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import type { MailRenderer } from '../../src/mail/render-pool.ts';
import renderAndCompose from '../../src/mail/render-task.ts';
import { createMailer } from '../../src/mail/transport.ts';
import type { TestApp } from './app.ts';
import { parseMime } from './smtp-receiver.ts';

type ParsedMail = ReturnType<typeof parseMime>;

export function inThreadRenderer(from: string): MailRenderer {
  return {
    render: (request) => renderAndCompose({ from, request }),
    async close() {},
  };
}

/**
 * Runs the e-mail job once, after a second on the app's clock, into a fresh outbox under
 * `dir`, rendering in this thread; every mail it wrote, parsed.
 */
export async function sendDueMails(
  t: Pick<TestApp, 'database' | 'clock'>,
  dir: string,
  walletSecretsKey?: Buffer,
): Promise<ParsedMail[]> {
  const from = 'Marquee <no-reply@localhost>';
  const outbox = await mkdtemp(join(dir, 'outbox-'));
  const mailer = createMailer({ from, outboxDir: outbox, clock: t.clock });
  try {
    t.clock.advance(1000);
    await runEmailJobsOnce({
      db: t.database.db,
      mailer,
      renderer: inThreadRenderer(from),
      clock: t.clock,
      ...(walletSecretsKey ? { walletSecretsKey } : {}),
    });
  } finally {
    mailer.close();
  }
  return Promise.all(
    (await readdir(outbox)).map(async (file) => parseMime(await readFile(join(outbox, file), 'latin1'))),
  );
}
