/**
 * What one worker thread of the render pool runs (src/mail/render-pool.ts): a mail's
 * template, its QR codes and its MIME composition, start to finish, so the thread that
 * called it receives bytes ready to send. Also callable directly, in the calling thread.
 */
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
import type { MailMessage } from './transport.ts';

/** An order's mails speak for its organizer (`sender`); the account mails for the platform. */
export type RenderRequest =
  | { kind: 'receipt'; input: ReceiptInput; sender?: MailSender }
  | { kind: 'etickets'; input: ETicketInput; sender?: MailSender }
  | { kind: 'invitation'; input: InvitationInput }
  | { kind: 'password_reset'; input: PasswordResetInput };

export interface RenderTask {
  /** The From header. */
  from: string;
  request: RenderRequest;
}

async function renderAndCompose(task: RenderTask): Promise<ComposedMail> {
  const sender = 'sender' in task.request ? task.request.sender : undefined;
  return composeMail(task.from, await renderMessage(task.request), sender);
}

function renderMessage(request: RenderRequest): Promise<MailMessage> {
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

export default renderAndCompose;
