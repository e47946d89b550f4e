/**
 * What rides with an e-ticket mail (docs/tickets.md, "What a buyer receives"): the order's
 * PDF tickets, a calendar file per performance, an Apple Wallet pass per ticket and an
 * "Add to Google Wallet" link when the organizer has configured them.
 *
 * Runs in the render threads (src/mail/render-task.ts) with everything it needs passed in:
 * the documents' input and the signers, their keys already opened by the job.
 *
 * Nothing here stops a mail: a document that cannot be made is left out and said in a
 * note, which the job records on the mail (the mail log's `notes`). The tickets the
 * buyer needs at the door are in the mail itself, as QR codes.
 */
import { renderApplePass, type AppleSigner } from '../documents/apple-pass.ts';
import { calendarFiles } from '../documents/calendar.ts';
import type { GoogleSignerLookup } from '../documents/google-signer.ts';
import { googleWalletSaveUrl } from '../documents/google-wallet.ts';
import { renderTicketsPdf } from '../documents/pdf.ts';
import type { OrderDocumentInput } from '../documents/types.ts';
import { safeFileNamePart } from './templates.ts';
import type { MailAttachment } from './compose.ts';

/**
 * Most passes one mail carries. A pass is a few kilobytes, but a wallet adds each one on
 * its own tap: past a handful, the PDF serves a group better, and every pass stays a
 * download away in the console (GET /v1/tickets/{id}/pass.pkpass).
 */
const MAX_PASSES_PER_MAIL = 10;

export interface TicketDocumentsRequest {
  documents: OrderDocumentInput;
  apple?: AppleSigner;
  /** The organizer's Google Wallet signer, or why its stored key cannot sign; omitted: no link. */
  google?: GoogleSignerLookup;
  /** When the mail is made: the Google Wallet JWT's `iat`. */
  issuedAt?: Date;
}

interface RenderedTicketDocuments {
  attachments: MailAttachment[];
  googleWalletUrl?: string;
  /** What was left out and why, one line each. */
  notes: string[];
}

export async function renderTicketDocuments(request: TicketDocumentsRequest): Promise<RenderedTicketDocuments> {
  const { documents } = request;
  const notes: string[] = [];
  const attachments: MailAttachment[] = [];

  const pdf = await leftOutOnFailure(notes, 'PDF tickets', () => renderTicketsPdf(documents));
  if (pdf) {
    attachments.push({
      filename: `tickets-${safeFileNamePart(documents.orderNo, 'order')}.pdf`,
      content: pdf,
      contentType: 'application/pdf',
    });
  }

  const calendars = await leftOutOnFailure(notes, 'calendar files', () => calendarFiles(documents));
  for (const file of calendars ?? []) {
    attachments.push({
      filename: file.filename,
      content: Buffer.from(file.content, 'utf8'),
      contentType: 'text/calendar; charset=utf-8',
    });
  }

  if (request.apple) attachments.push(...(await applePasses(documents, request.apple, notes)));

  const googleWalletUrl = await googleWalletLink(request, notes);

  return { attachments, ...(googleWalletUrl ? { googleWalletUrl } : {}), notes };
}

/** One link for every ticket of the order: Google's save JWT holds them all. */
async function googleWalletLink(request: TicketDocumentsRequest, notes: string[]): Promise<string | undefined> {
  const { google } = request;
  if (!google || google.status === 'unconfigured') return undefined;
  if (google.status === 'unusable') {
    notes.push(`Google Wallet link left out: ${google.reason}`);
    return undefined;
  }
  return leftOutOnFailure(notes, 'Google Wallet link', () =>
    googleWalletSaveUrl(request.documents, google.signer, request.issuedAt ?? new Date()),
  );
}

/** Every ticket's pass, or none: a buyer with some passes and not others would not know why. */
async function applePasses(
  documents: OrderDocumentInput,
  signer: AppleSigner,
  notes: string[],
): Promise<MailAttachment[]> {
  const count = documents.tickets.length;
  if (count > MAX_PASSES_PER_MAIL) {
    notes.push(
      `Apple Wallet passes left out: the order has ${count} tickets, more than the ${MAX_PASSES_PER_MAIL} passes a mail carries; each is downloadable.`,
    );
    return [];
  }
  const passes = await leftOutOnFailure(notes, 'Apple Wallet passes', () =>
    Promise.all(documents.tickets.map((ticket) => renderApplePass(documents, ticket, signer))),
  );
  return (passes ?? []).map((content, i) => ({
    filename: `ticket-${safeFileNamePart(documents.tickets[i]!.ticketNo)}.pkpass`,
    content,
    contentType: 'application/vnd.apple.pkpass',
  }));
}

async function leftOutOnFailure<T>(notes: string[], what: string, make: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await make();
  } catch (err) {
    notes.push(`${what} left out: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
