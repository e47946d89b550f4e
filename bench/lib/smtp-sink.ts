/**
 * The mail scenarios' SMTP server on 127.0.0.1 (smtp-server): accepts everything, keeps
 * for each message only its arrival time, size and Subject (the order number is in it),
 * and counts connections.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

interface SunkMail {
  at: number;
  bytes: number;
  subject: string;
}

export interface SmtpSink {
  url: string;
  mails: SunkMail[];
  readonly connections: number;
  /** Resolves when `count` mails have arrived; rejects after timeoutMs. */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  /** Resolves when a mail whose subject contains `text` has arrived. */
  waitForSubject(text: string, timeoutMs: number): Promise<SunkMail>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: SunkMail[] = [];
  let connections = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 100 * 1024 * 1024,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onData(stream, _session, callback) {
      let bytes = 0;
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString('latin1', 0, Math.min(chunk.length, 4096));
        bytes += chunk.length;
      });
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/im.exec(head)?.[1]?.trim() ?? '';
        mails.push({ at: performance.now(), bytes, subject });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const poll = async <T>(found: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = found();
      if (hit !== undefined) return hit;
      if (performance.now() > deadline)
        throw new Error(`smtp sink: ${what} not seen after ${timeoutMs} ms (${mails.length} mails)`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    get connections() {
      return connections;
    },
    async waitFor(count, timeoutMs) {
      await poll(() => (mails.length >= count ? true : undefined), timeoutMs, `${count} mails`);
    },
    waitForSubject(text, timeoutMs) {
      return poll(() => mails.find((m) => m.subject.includes(text)), timeoutMs, `a mail "${text}"`);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
