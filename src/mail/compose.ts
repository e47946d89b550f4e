/**
 * A MailMessage as the bytes that go on the wire: the complete RFC 5322 message (MIME
 * tree, base64 images, quoted-printable HTML), its SMTP envelope and its Message-ID.
 *
 * Composing is CPU work proportional to the message (a 1,000-ticket e-ticket mail is
 * megabytes), so the e-mail job does it in a worker thread next to rendering
 * (src/mail/render-pool.ts); the mailer only moves the finished bytes.
 */
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailMessage } from './transport.ts';

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

export async function composeMail(from: string, msg: MailMessage): Promise<ComposedMail> {
  if (!SINGLE_ADDRESS.test(msg.to)) {
    throw new TypeError(`mail: recipient must be a single e-mail address, got ${JSON.stringify(msg.to)}`);
  }
  const root = new MailComposer({
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
