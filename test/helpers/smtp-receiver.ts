/**
 * A throwaway SMTP server on 127.0.0.1 that keeps every message it receives, for tests
 * that send real mail (the mail module, POST /orders side effects).
 *
 * Also exports `parseMime`, a deliberately small RFC 2045/2046 reader: `mailparser` is not
 * installed, and the tests only need headers, the leaf parts and their decoded bodies.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

interface ReceivedMessage {
  /** SMTP envelope sender (MAIL FROM). */
  from: string;
  /** SMTP envelope recipients (RCPT TO). */
  to: string[];
  /** The message as transmitted, headers and body, CRLF line ends. */
  raw: string;
}

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>`, ready for `SMTP_URL`. */
  url: string;
  port: number;
  messages: ReceivedMessage[];
  /** SMTP connections accepted so far (a pooled client reuses one for many messages). */
  readonly connections: number;
  /** Resolves once at least `count` messages have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

interface SmtpReceiverOptions {
  /**
   * Advertise STARTTLS with smtp-server's built-in self-signed certificate, like many
   * local relays do. Off by default so clients never attempt the upgrade.
   */
  advertiseStartTls?: boolean;
}

export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMessage[] = [];
  const waiters = new Set<() => void>();
  let connections = 0;

  const server = new SMTPServer({
    authOptional: true,
    secure: false,
    disabledCommands: options.advertiseStartTls ? [] : ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        messages.push({
          from: mailFrom ? mailFrom.address : '',
          to: rcptTo.map((r) => r.address),
          // latin1 keeps every byte as one char; MIME bodies are 7-bit anyway.
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    get connections() {
      return connections;
    },
    waitFor(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < count) return;
          cleanup();
          resolve(messages);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`smtp receiver: ${messages.length} of ${count} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------
// Minimal MIME reader
// ---------------------------------------------------------------------------------------

interface MimePart {
  /** Lower-cased header names; repeated headers keep the last value. */
  headers: Map<string, string>;
  /** Lower-cased media type without parameters, e.g. `text/plain`. */
  contentType: string;
  /** The body after Content-Transfer-Encoding is undone. */
  content: Buffer;
  /** `content` as UTF-8, for text parts. */
  text: string;
  /** Content-ID without angle brackets, when present. */
  cid?: string;
  filename?: string;
}

interface ParsedMessage {
  headers: Map<string, string>;
  /** Leaf (non-multipart) parts in document order. */
  parts: MimePart[];
}

/** `raw` holds one byte per char (latin1), as `ReceivedMessage.raw` does. */
export function parseMime(raw: string): ParsedMessage {
  const { headers } = splitEntity(raw);
  return { headers, parts: leafParts(raw) };
}

/** Header lookup with RFC 2047 encoded words (`=?UTF-8?Q?...?=`) decoded. */
export function header(headers: Map<string, string>, name: string): string | undefined {
  const value = headers.get(name.toLowerCase());
  return value === undefined ? undefined : decodeEncodedWords(value);
}

function leafParts(entityRaw: string): MimePart[] {
  const { headers, body } = splitEntity(entityRaw);
  const contentTypeHeader = headers.get('content-type') ?? 'text/plain';
  const contentType = contentTypeHeader.split(';')[0]!.trim().toLowerCase();

  if (contentType.startsWith('multipart/')) {
    const boundary = headerParam(contentTypeHeader, 'boundary');
    if (!boundary) throw new Error(`multipart without boundary: ${contentTypeHeader}`);
    return splitMultipart(body, boundary).flatMap(leafParts);
  }

  const content = decodeBody(body, headers.get('content-transfer-encoding'));
  const part: MimePart = { headers, contentType, content, text: content.toString('utf8') };
  const contentId = headers.get('content-id');
  if (contentId) part.cid = contentId.trim().replace(/^<|>$/g, '');
  const filename =
    headerParam(headers.get('content-disposition') ?? '', 'filename') ?? headerParam(contentTypeHeader, 'name');
  if (filename) part.filename = decodeEncodedWords(filename);
  return [part];
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const text = raw.replace(/\r\n/g, '\n');
  const separator = text.indexOf('\n\n');
  const headerBlock = separator === -1 ? text : text.slice(0, separator);
  const body = separator === -1 ? '' : text.slice(separator + 2);
  const headers = new Map<string, string>();
  // Unfold continuation lines (those starting with whitespace) before splitting.
  for (const line of headerBlock.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let current: string[] | null = null; // null until the first delimiter (preamble)
  for (const line of body.split('\n')) {
    if (line === `${delimiter}--`) break;
    if (line === delimiter) {
      if (current) parts.push(current.join('\n'));
      current = [];
    } else if (current) {
      current.push(line);
    }
  }
  if (current) parts.push(current.join('\n'));
  return parts;
}

function headerParam(headerValue: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(headerValue);
  return match ? (match[1] ?? match[2]) : undefined;
}

function decodeBody(body: string, transferEncoding = '7bit'): Buffer {
  switch (transferEncoding.trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return Buffer.from(body, 'latin1');
  }
}

function decodeQuotedPrintable(body: string): Buffer {
  // Whitespace at the end of a line is transport padding and is dropped; whitespace just
  // before a soft break (`=` at line end) is content and is kept.
  const softBreaksRemoved = body.replace(/[ \t]+$/gm, '').replace(/=\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < softBreaksRemoved.length; i++) {
    const ch = softBreaksRemoved[i]!;
    const hex = softBreaksRemoved.slice(i + 1, i + 3);
    if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(ch.charCodeAt(0) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1') // whitespace between words is dropped
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, data: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')).toString('utf8'),
    );
}
