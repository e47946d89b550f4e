/**
 * What one worker thread of the render pool runs (src/mail/render-pool.ts): a mail's
 * template, its QR codes and its MIME composition, start to finish, so the thread that
 * called it receives bytes ready to send. Also callable directly, in the calling thread.
 */
import { composeMail, type ComposedMail } from './compose.ts';
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

export type RenderRequest =
  | { kind: 'receipt'; input: ReceiptInput }
  | { kind: 'etickets'; input: ETicketInput }
  | { kind: 'invitation'; input: InvitationInput }
  | { kind: 'password_reset'; input: PasswordResetInput };

export interface RenderTask {
  /** The From header. */
  from: string;
  request: RenderRequest;
}

async function renderAndCompose(task: RenderTask): Promise<ComposedMail> {
  return composeMail(task.from, await renderMessage(task.request));
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
