/**
 * The organizer's Google Wallet signer (docs/tickets.md, "Wallet settings and their keys"):
 * its settings row with the private key opened with WALLET_SECRETS_KEY.
 *
 * Unlike the Apple signer, a key that does not open is answered as such rather than as
 * "not configured": the organizer did configure Google Wallet, so the mail's notes and the
 * API say why the link is missing (the operator changed or lost WALLET_SECRETS_KEY).
 */
import { findGoogleWalletSettings } from '../db/repositories/google-wallet.ts';
import type { Executor } from '../db/transaction.ts';
import { openSecret } from '../lib/secret-box.ts';
import type { GoogleWalletSigner } from './google-wallet.ts';

export type GoogleSignerLookup =
  { status: 'unconfigured' } | { status: 'unusable'; reason: string } | { status: 'ready'; signer: GoogleWalletSigner };

export async function loadGoogleSigner(
  db: Executor,
  organizerId: string,
  secretsKey: Buffer | undefined,
): Promise<GoogleSignerLookup> {
  const row = await findGoogleWalletSettings(db, organizerId);
  if (!row) return { status: 'unconfigured' };
  if (!secretsKey) {
    return { status: 'unusable', reason: 'the service has no WALLET_SECRETS_KEY to open the stored key with' };
  }
  let privateKeyPem: string;
  try {
    privateKeyPem = openSecret(row.sealed_private_key, secretsKey);
  } catch {
    return {
      status: 'unusable',
      reason:
        'the stored service-account key does not open with WALLET_SECRETS_KEY (sealed under another key); give the Google Wallet settings again',
    };
  }
  return {
    status: 'ready',
    signer: {
      issuerId: row.issuer_id,
      serviceAccountEmail: row.service_account_email,
      privateKeyPem,
      keyId: row.key_id,
    },
  };
}
