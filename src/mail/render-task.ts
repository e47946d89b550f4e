/**
 * What one worker thread of the render pool runs (src/mail/render-pool.ts): a mail's
 * template, its QR codes and its MIME composition, start to finish, so the thread that
 * called it receives bytes ready to send. Also callable directly, in the calling thread.
 */
import { composeMail, type ComposedMail } from './compose.ts';
import { renderETickets, renderReceipt, type ETicketInput, type ReceiptInput } from './templates.ts';

export type RenderRequest = { kind: 'receipt'; input: ReceiptInput } | { kind: 'etickets'; input: ETicketInput };

export interface RenderTask {
  /** The From header. */
  from: string;
  request: RenderRequest;
}

async function renderAndCompose(task: RenderTask): Promise<ComposedMail> {
  const { request } = task;
  const message = request.kind === 'receipt' ? await renderReceipt(request.input) : await renderETickets(request.input);
  return composeMail(task.from, message);
}

export default renderAndCompose;
