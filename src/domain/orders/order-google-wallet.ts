/** GET /v1/orders/{id}/google_wallet: the order's "Add to Google Wallet" link (docs/tickets.md, "Google Wallet"). */
import { findOrder } from '../../db/repositories/orders.ts';
import type { Executor } from '../../db/transaction.ts';
import { loadGoogleSigner } from '../../documents/google-signer.ts';
import { googleWalletSaveUrl } from '../../documents/google-wallet.ts';
import { loadOrderDocuments } from '../../documents/load.ts';
import { conflict, notFound } from '../../errors/domain-error.ts';
import { googleWalletNotConfigured } from '../organizers/google-wallet.ts';

/**
 * The save link of every ticket the buyer can still use, in the event's language, as the
 * e-ticket mail carries it. Another organizer's order is not found, and so are Google
 * Wallet settings the organizer never gave; an order with no ticket left (all cancelled or
 * refunded), or a stored key that no longer opens, is a 409 `invalid_state`.
 */
export async function orderGoogleWalletUrl(
  db: Executor,
  organizerId: string,
  id: string,
  secretsKey: Buffer | undefined,
  now: Date,
): Promise<string> {
  const order = await findOrder(db, organizerId, id);
  if (!order) throw notFound('Order');
  const lookup = await loadGoogleSigner(db, organizerId, secretsKey);
  if (lookup.status === 'unconfigured') throw googleWalletNotConfigured();
  const documents = await loadOrderDocuments(db, order);
  if (!documents) throw conflict('invalid_state', 'The order has no valid ticket left: all are cancelled or refunded.');
  if (lookup.status === 'unusable') throw conflict('invalid_state', `Google Wallet cannot sign: ${lookup.reason}.`);
  return googleWalletSaveUrl(documents, lookup.signer, now);
}
