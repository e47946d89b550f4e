/**
 * The organizer's Apple Wallet signer (docs/tickets.md, "Wallet settings and their keys"):
 * its settings row with the private key opened with WALLET_SECRETS_KEY. Undefined when the
 * organizer has configured nothing, or the service has no secrets key to open it with.
 */
import { findAppleWalletSettings } from '../db/repositories/apple-wallet.ts';
import type { Executor } from '../db/transaction.ts';
import { openSecret } from '../lib/secret-box.ts';
import type { AppleSigner } from './apple-pass.ts';

export type { AppleSigner } from './apple-pass.ts';

export async function loadAppleSigner(
  db: Executor,
  organizerId: string,
  secretsKey: Buffer | undefined,
): Promise<AppleSigner | undefined> {
  if (!secretsKey) return undefined;
  const row = await findAppleWalletSettings(db, organizerId);
  if (!row) return undefined;
  let privateKeyPem: string;
  try {
    privateKeyPem = openSecret(row.sealed_private_key, secretsKey);
  } catch {
    // Sealed under another key (the operator changed WALLET_SECRETS_KEY): as unconfigured.
    return undefined;
  }
  return {
    passTypeIdentifier: row.pass_type_identifier,
    teamIdentifier: row.team_identifier,
    certificatePem: row.certificate_pem,
    privateKeyPem,
    wwdrCertificatePem: row.wwdr_certificate_pem,
    backgroundColor: row.background_color,
    foregroundColor: row.foreground_color,
    labelColor: row.label_color,
  };
}
