/** GET /v1/tickets/{id}/pass.pkpass: a ticket's Apple Wallet pass (docs/tickets.md, "Apple Wallet"). */
import { findOrder } from '../../db/repositories/orders.ts';
import { findTicket } from '../../db/repositories/tickets.ts';
import type { Executor } from '../../db/transaction.ts';
import { renderApplePass } from '../../documents/apple-pass.ts';
import { loadAppleSigner } from '../../documents/apple-signer.ts';
import { loadOrderDocuments } from '../../documents/load.ts';
import { conflict, notFound } from '../../errors/domain-error.ts';

interface TicketApplePass {
  ticketNo: string;
  pkpass: Buffer;
}

/**
 * The signed pass of a ticket the buyer can still use, in the event's language. Another
 * organizer's ticket is not found; no Apple Wallet settings (or no WALLET_SECRETS_KEY to
 * open them), or a cancelled or refunded ticket, is a 409 `invalid_state`.
 */
export async function ticketApplePass(
  db: Executor,
  organizerId: string,
  id: string,
  secretsKey: Buffer | undefined,
): Promise<TicketApplePass> {
  const ticket = await findTicket(db, organizerId, id);
  if (!ticket) throw notFound('Ticket');
  const signer = await loadAppleSigner(db, organizerId, secretsKey);
  if (!signer) {
    throw conflict(
      'invalid_state',
      'Apple Wallet is not configured for this organizer: configure it in the dashboard (PUT /dashboard/v1/organizer/wallet/apple).',
    );
  }
  const order = await findOrder(db, organizerId, ticket.order_id);
  const documents = order ? await loadOrderDocuments(db, order) : undefined;
  const document = documents?.tickets.find((each) => each.id === ticket.id);
  if (!documents || !document) {
    throw conflict('invalid_state', 'The ticket is no longer valid: it is cancelled or refunded.');
  }
  return { ticketNo: document.ticketNo, pkpass: await renderApplePass(documents, document, signer) };
}
