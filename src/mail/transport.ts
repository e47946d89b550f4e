/**
 * Outbound e-mail: one small interface, two implementations chosen by configuration.
 *
 * - `SMTP_URL` set: messages go to that SMTP server through nodemailer.
 * - `SMTP_URL` unset: each message is written as an RFC 5322 `.eml` file under
 *   `DATA_DIR/outbox` and counts as delivered (operations.md, section 2).
 *
 * Either way `send` rejects on failure; retrying is the caller's job (the mail job
 * queue), so nothing here retries or swallows errors.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { systemClock, type Clock } from '../lib/clock.ts';

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Content-ID for inline parts, referenced from the HTML as `cid:<cid>`. */
  cid?: string;
}

export interface MailMessage {
  /** A single bare address (`buyer@example.com`), never a display-name list. */
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: MailAttachment[];
}

export interface SendResult {
  /** The Message-ID header of the sent message, angle brackets included. */
  messageId: string;
  /** Path of the written `.eml` file; only set by the outbox mailer. */
  location?: string;
}

export interface Mailer {
  send(msg: MailMessage): Promise<SendResult>;
  close(): void;
}

export interface MailerOptions {
  /** e.g. `smtp://127.0.0.1:2525`; unset selects the `.eml` outbox. */
  smtpUrl?: string;
  /** The From header, e.g. `Marquee <no-reply@localhost>`. */
  from: string;
  /** Directory for `.eml` files when there is no SMTP server; created on demand. */
  outboxDir: string;
  /** Source of the timestamp in outbox file names; injectable for tests. */
  clock?: Clock;
}

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
  return opts.smtpUrl
    ? createSmtpMailer(opts.smtpUrl, opts.from)
    : createOutboxMailer(opts.from, opts.outboxDir, opts.clock ?? systemClock);
}

function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transporter = nodemailer.createTransport({
    ...SMTP_TIMEOUTS_MS,
    ...(shouldIgnoreStartTls(smtpUrl) ? { ignoreTLS: true } : {}),
    // Query parameters of the URL (e.g. `?ignoreTLS=false`) win over the keys above:
    // nodemailer merges the parsed URL on top of the rest of this object.
    url: smtpUrl,
  });
  return {
    async send(msg) {
      const info = await transporter.sendMail(toNodemailerMessage(from, msg));
      return { messageId: info.messageId };
    },
    close() {
      transporter.close();
    },
  };
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

function createOutboxMailer(from: string, outboxDir: string, clock: Clock): Mailer {
  const transporter = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    // RFC 5322 lines end in CRLF; the stream transport defaults to bare LF.
    newline: 'windows',
  });
  return {
    async send(msg) {
      const info = await transporter.sendMail(toNodemailerMessage(from, msg));
      if (!Buffer.isBuffer(info.message)) {
        throw new Error('mail outbox: expected the stream transport to return a Buffer');
      }
      await mkdir(outboxDir, { recursive: true });
      const location = path.join(outboxDir, outboxFileName(clock.now(), info.messageId));
      // Write then rename, so whoever watches the outbox never sees a half-written file.
      const partial = `${location}.partial`;
      await writeFile(partial, info.message, { flag: 'wx' });
      await rename(partial, location);
      return { messageId: info.messageId, location };
    },
    close() {
      transporter.close();
    },
  };
}

/**
 * `<ISO timestamp>-<message id>.eml`, sortable by time. Colons of the timestamp become
 * dashes (`2026-06-01T12-00-00.000Z`) because Windows forbids `:` in file names; the
 * message id keeps only characters that are safe in a file name on every platform.
 */
export function outboxFileName(at: Date, messageId: string): string {
  const timestamp = at.toISOString().replace(/:/g, '-');
  const id = messageId.replace(/^<|>$/g, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120);
  return `${timestamp}-${id || 'message'}.eml`;
}

/**
 * Matches one bare address. nodemailer parses `to` as an address *list*, so a value such
 * as `a@x.test, b@y.test` would reach two people; the recipient of a receipt must be
 * exactly the buyer, so anything else is refused before it reaches a transport.
 */
const SINGLE_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/;

function toNodemailerMessage(from: string, msg: MailMessage) {
  if (!SINGLE_ADDRESS.test(msg.to)) {
    throw new TypeError(`mail: recipient must be a single e-mail address, got ${JSON.stringify(msg.to)}`);
  }
  return {
    from,
    to: msg.to,
    subject: msg.subject,
    text: msg.text,
    html: msg.html,
    attachments: msg.attachments?.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      ...(a.cid ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
    })),
  };
}
