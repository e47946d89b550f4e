/**
 * A MailMessage as the bytes that go on the wire: the complete RFC 5322 message (MIME
 * tree, base64 images, quoted-printable HTML), its SMTP envelope and its Message-ID.
 *
 * Composing is CPU work proportional to the message (a 1,000-ticket e-ticket mail is
 * megabytes), so the e-mail job does it in a worker thread next to rendering
 * (src/mail/render-pool.ts); the mailer only moves the finished bytes.
 */
import addressparser from 'nodemailer/lib/addressparser';
import MailComposer from 'nodemailer/lib/mail-composer';

/** A message as the e-mail jobs write it, before composition. */
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

/**
 * Who an organizer's mail (a receipt, e-tickets) speaks for (docs/dashboard.md,
 * "Organizer settings"): the From keeps the platform's address, which its SPF, DKIM and
 * DMARC vouch for, with the organizer's name as its display name; replies go to the
 * organizer's sender_email, else its contact_email, else the From.
 */
export interface MailSender {
  name: string;
  replyTo: string | null;
}

export interface ComposedMail {
  /** The whole message, headers and body, CRLF line ends. */
  raw: Buffer;
  /** The Message-ID header, angle brackets included. */
  messageId: string;
  envelope: { from: string; to: string[] };
}

/**
 * Matches one bare address. nodemailer parses `to` as an address *list*, so a value such
 * as `a@x.test, b@y.test` would reach two people; the recipient of a receipt must be
 * exactly the buyer, so anything else is refused before it reaches a transport.
 */
const SINGLE_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/;

/** The address of a From header (`Marquee <no-reply@localhost>` → `no-reply@localhost`). */
function addressOf(from: string): string {
  return addressparser(from, { flatten: true })[0]?.address || from;
}

export async function composeMail(from: string, msg: MailMessage, sender?: MailSender): Promise<ComposedMail> {
  if (!SINGLE_ADDRESS.test(msg.to)) {
    throw new TypeError(`mail: recipient must be a single e-mail address, got ${JSON.stringify(msg.to)}`);
  }
  const root = new MailComposer({
    from: sender ? { name: sender.name, address: addressOf(from) } : from,
    ...(sender?.replyTo ? { replyTo: sender.replyTo } : {}),
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
    // RFC 5322 lines end in CRLF, which both the SMTP server and an .eml reader expect.
    newline: 'windows',
  }).compile();
  const envelope = root.getEnvelope();
  return {
    raw: await root.build(),
    messageId: root.messageId(),
    envelope: { from: envelope.from || from, to: envelope.to },
  };
}
