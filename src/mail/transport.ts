/**
 * Outbound e-mail: one small interface, two implementations chosen by configuration.
 *
 * - `SMTP_URL` set: messages go to that SMTP server through nodemailer.
 * - `SMTP_URL` unset: each message is written as an RFC 5322 `.eml` file under
 *   `DATA_DIR/outbox` and counts as delivered (README, Configuration: `SMTP_URL`).
 *
 * Either way `send` rejects on failure; retrying is the caller's job (the mail job
 * queue), so nothing here retries or swallows errors.
 *
 * SMTP connections are pooled: a connection (handshake, greeting, EHLO) carries up to
 * `smtpMaxMessages` messages, and at most `smtpMaxConnections` are open at once.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import { systemClock, type Clock } from '../lib/clock.ts';
import { composeMail, type ComposedMail, type MailMessage } from './compose.ts';

interface SendResult {
  /** The Message-ID header of the sent message, angle brackets included. */
  messageId: string;
  /** Path of the written `.eml` file; only set by the outbox mailer. */
  location?: string;
}

export interface Mailer {
  /** Composes the message in this thread, then sends it. */
  send(msg: MailMessage): Promise<SendResult>;
  /** Sends a message composed elsewhere (the render pool); only I/O in this thread. */
  sendComposed(mail: ComposedMail): Promise<SendResult>;
  /** Closes pooled connections once the messages in hand are sent. */
  close(): void;
}

interface MailerOptions {
  /** e.g. `smtp://127.0.0.1:2525`; unset selects the `.eml` outbox. */
  smtpUrl?: string;
  /** The From header, e.g. `Marquee <no-reply@localhost>`. */
  from: string;
  /** Directory for `.eml` files when there is no SMTP server; created on demand. */
  outboxDir: string;
  /** Source of the timestamp in outbox file names; injectable for tests. */
  clock?: Clock;
  /** Most SMTP connections open at once (default 4). */
  smtpMaxConnections?: number;
  /** Messages one SMTP connection carries before it is replaced (default 100). */
  smtpMaxMessages?: number;
}

const SMTP_DEFAULT_MAX_CONNECTIONS = 4;
const SMTP_DEFAULT_MAX_MESSAGES = 100;

/**
 * The message is handed to nodemailer in slices: its SMTP data stream escapes dots and
 * line ends chunk by chunk in this thread, and a multi-megabyte e-ticket mail in one
 * chunk would be one long synchronous step.
 */
const SEND_SLICE_BYTES = 64 * 1024;

/**
 * Bounds on every SMTP phase. nodemailer's defaults (2 minutes to connect, 10 minutes of
 * socket inactivity) would let one dead server stall the mail worker; failing after a few
 * seconds lets the job queue schedule a retry instead.
 */
const SMTP_TIMEOUTS_MS = {
  connectionTimeout: 5_000,
  greetingTimeout: 5_000,
  socketTimeout: 15_000,
  dnsTimeout: 5_000,
} as const;

export function createMailer(opts: MailerOptions): Mailer {
  const sendComposed = opts.smtpUrl
    ? createSmtpSender(opts.smtpUrl, opts)
    : createOutboxSender(opts.outboxDir, opts.clock ?? systemClock);
  return {
    async send(msg) {
      return sendComposed.send(await composeMail(opts.from, msg));
    },
    sendComposed: (mail) => sendComposed.send(mail),
    close: () => sendComposed.close(),
  };
}

interface ComposedSender {
  send(mail: ComposedMail): Promise<SendResult>;
  close(): void;
}

function createSmtpSender(smtpUrl: string, opts: MailerOptions): ComposedSender {
  const transporter = nodemailer.createTransport({
    ...SMTP_TIMEOUTS_MS,
    pool: true,
    maxConnections: opts.smtpMaxConnections ?? SMTP_DEFAULT_MAX_CONNECTIONS,
    maxMessages: opts.smtpMaxMessages ?? SMTP_DEFAULT_MAX_MESSAGES,
    // A pooled connection the server closed while idle is retried once on a fresh one;
    // beyond that the job queue's backoff decides, not nodemailer's own requeue loop.
    maxRequeues: 1,
    ...(shouldIgnoreStartTls(smtpUrl) ? { ignoreTLS: true } : {}),
    // Query parameters of the URL (e.g. `?ignoreTLS=false`) win over the keys above:
    // nodemailer merges the parsed URL on top of the rest of this object.
    url: smtpUrl,
  });
  return {
    async send(mail) {
      await transporter.sendMail({ envelope: mail.envelope, raw: Readable.from(slices(mail.raw, SEND_SLICE_BYTES)) });
      // The Message-ID is the one composed into the message; nodemailer does not parse a raw one.
      return { messageId: mail.messageId };
    },
    close() {
      transporter.close();
    },
  };
}

function* slices(buf: Buffer, size: number): Generator<Buffer> {
  for (let start = 0; start < buf.length; start += size) yield buf.subarray(start, start + size);
}

/**
 * A plain `smtp://` URL to a loopback host is a local relay or test server (MailHog,
 * smtp-server, ...). Those often advertise STARTTLS with a self-signed certificate, which
 * nodemailer would try to upgrade to and then reject. Nothing crosses the network there,
 * so skip the upgrade. Remote hosts keep opportunistic STARTTLS with verification.
 */
function shouldIgnoreStartTls(smtpUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    return false; // let nodemailer report the malformed URL on first send
  }
  if (url.protocol !== 'smtp:') return false;
  return isLoopbackHost(url.hostname);
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase(); // URL keeps IPv6 brackets
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

function createOutboxSender(outboxDir: string, clock: Clock): ComposedSender {
  return {
    async send(mail) {
      await mkdir(outboxDir, { recursive: true });
      const location = path.join(outboxDir, outboxFileName(clock.now(), mail.messageId));
      // Write then rename, so whoever watches the outbox never sees a half-written file.
      const partial = `${location}.partial`;
      await writeFile(partial, mail.raw, { flag: 'wx' });
      await rename(partial, location);
      return { messageId: mail.messageId, location };
    },
    close() {},
  };
}

/**
 * `<ISO timestamp>-<message id>.eml`, sortable by time. Colons of the timestamp become
 * dashes (`2026-06-01T12-00-00.000Z`) because Windows forbids `:` in file names; the
 * message id keeps only characters that are safe in a file name on every platform.
 */
function outboxFileName(at: Date, messageId: string): string {
  const timestamp = at.toISOString().replace(/:/g, '-');
  const id = messageId
    .replace(/^<|>$/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 120);
  return `${timestamp}-${id || 'message'}.eml`;
}
