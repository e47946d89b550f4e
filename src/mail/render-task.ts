/**
 * What one worker thread of the render pool runs (src/mail/render-pool.ts): a mail's
 * template, its QR codes and its MIME composition, start to finish, so the thread that
 * called it receives bytes ready to send. Also callable directly, in the calling thread.
 */
import { constants, setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { composeMail, type ComposedMail, type MailSender } from './compose.ts';
import {
  renderETickets,
  renderInvitation,
  renderPasswordReset,
  renderReceipt,
  type ETicketInput,
  type InvitationInput,
  type PasswordResetInput,
  type ReceiptInput,
} from './templates.ts';
import { renderTicketDocuments, type TicketDocumentsRequest } from './ticket-documents.ts';
import type { MailMessage } from './compose.ts';

/** An order's mails speak for its organizer (`sender`); the account mails for the platform. */
export type RenderRequest =
  | { kind: 'receipt'; input: ReceiptInput; sender?: MailSender }
  | { kind: 'etickets'; input: ETicketInput; sender?: MailSender; documents?: TicketDocumentsRequest }
  | { kind: 'invitation'; input: InvitationInput }
  | { kind: 'password_reset'; input: PasswordResetInput };

export interface RenderTask {
  /** The From header. */
  from: string;
  request: RenderRequest;
}

/** A composed mail, and what it left out and why (an e-ticket mail's documents). */
export interface RenderedMail extends ComposedMail {
  notes: string[];
}

async function renderAndCompose(task: RenderTask): Promise<RenderedMail> {
  const sender = 'sender' in task.request ? task.request.sender : undefined;
  const { message, notes } = await renderMessage(task.request);
  return { ...(await composeMail(task.from, message, sender)), notes };
}

async function renderMessage(request: RenderRequest): Promise<{ message: MailMessage; notes: string[] }> {
  if (request.kind === 'etickets' && request.documents) {
    const documents = await renderTicketDocuments(request.documents);
    const input = {
      ...request.input,
      extraAttachments: documents.attachments,
      ...(documents.googleWalletUrl ? { googleWalletUrl: documents.googleWalletUrl } : {}),
    };
    return { message: await renderETickets(input), notes: documents.notes };
  }
  return { message: await renderPlain(request), notes: [] };
}

function renderPlain(request: RenderRequest): Promise<MailMessage> {
  switch (request.kind) {
    case 'receipt':
      return renderReceipt(request.input);
    case 'etickets':
      return renderETickets(request.input);
    case 'invitation':
      return renderInvitation(request.input);
    case 'password_reset':
      return renderPasswordReset(request.input);
  }
}

/**
 * A render thread yields the cores to the threads that answer requests: mails are sent in
 * the background and may wait, a box office or a door may not (bench/README.md, the
 * embedded reads during the rush's mails). On Linux a nice value is a thread's own, and
 * setPriority() without a pid sets the calling thread's; the thread that serves the API
 * keeps its priority.
 */
if (!isMainThread) setPriority(constants.priority.PRIORITY_BELOW_NORMAL);

export default renderAndCompose;
