/**
 * An organizer's Google Wallet settings (docs/tickets.md, "Wallet settings and their keys";
 * docs/dashboard.md, "Wallet passes"): the issuer id and the service-account key file Google
 * Cloud gives. The key file is read here and only its private key kept, sealed with
 * WALLET_SECRETS_KEY and never answered; the account's e-mail and the key's id are kept
 * beside it because they go into every JWT. Everything is checked when it is configured,
 * so a key that cannot sign fails with a 400 here and never while e-mails go out.
 */
import { createPrivateKey } from 'node:crypto';
import {
  deleteGoogleWalletSettings as deleteRow,
  findGoogleWalletSettings,
  upsertGoogleWalletSettings,
  type GoogleWalletSettingsRow,
} from '../../db/repositories/google-wallet.ts';
import type { Executor } from '../../db/transaction.ts';
import { DomainError, invalid } from '../../errors/domain-error.ts';
import { sealSecret } from '../../lib/secret-box.ts';
import { requireWalletSecretsKey } from './wallet-keys.ts';

interface GoogleWalletSettings {
  issuer_id: string;
  service_account_email: string;
  key_id: string;
  updated_at: string;
}

interface GoogleWalletSettingsInput {
  issuer_id: string;
  service_account_key: string;
}

const HOW_TO = '(docs/tickets.md, "Wallet settings and their keys")';

function settingsOf(row: GoogleWalletSettingsRow): GoogleWalletSettings {
  return {
    issuer_id: row.issuer_id,
    service_account_email: row.service_account_email,
    key_id: row.key_id,
    updated_at: row.updated_at.toISOString(),
  };
}

/** The 404 of an organizer without settings, for the dashboard and the link alike. */
export function googleWalletNotConfigured(): DomainError {
  return new DomainError(
    'resource_not_found',
    'Google Wallet is not configured for this organizer: configure it in the dashboard (PUT /dashboard/v1/organizer/wallet/google).',
  );
}

/** GET /dashboard/v1/organizer/wallet/google; 404 when nothing is configured. */
export async function getGoogleWalletSettings(db: Executor, organizerId: string): Promise<GoogleWalletSettings> {
  const row = await findGoogleWalletSettings(db, organizerId);
  if (!row) throw googleWalletNotConfigured();
  return settingsOf(row);
}

interface ServiceAccountKey {
  email: string;
  keyId: string;
  /** PKCS #8 PEM, whatever form the file had. */
  privateKeyPem: string;
}

const keyInvalid = (detail: string) => invalid('parameter_invalid', detail, 'service_account_key');

function stringField(file: Record<string, unknown>, name: string): string | undefined {
  const value = file[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The parts of a Google Cloud service-account key file that sign a save link. */
function parseServiceAccountKey(text: string): ServiceAccountKey {
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    throw keyInvalid(
      `service_account_key is not JSON: give the whole key file Google Cloud downloads for the service account ${HOW_TO}.`,
    );
  }
  if (typeof file !== 'object' || file === null || (file as Record<string, unknown>).type !== 'service_account') {
    throw keyInvalid('service_account_key is not a service-account key: its "type" must be "service_account".');
  }
  const fields = file as Record<string, unknown>;
  const email = stringField(fields, 'client_email');
  if (!email) throw keyInvalid('service_account_key has no "client_email".');
  const keyId = stringField(fields, 'private_key_id');
  if (!keyId) throw keyInvalid('service_account_key has no "private_key_id".');
  const pem = stringField(fields, 'private_key');
  let key;
  try {
    key = pem === undefined ? undefined : createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    key = undefined;
  }
  // Google signs and verifies save links with RS256 only.
  if (!key || key.asymmetricKeyType !== 'rsa') {
    throw keyInvalid('service_account_key\'s "private_key" is not an RSA private key in PEM.');
  }
  return { email, keyId, privateKeyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

/**
 * PUT /dashboard/v1/organizer/wallet/google: checks and stores the settings, replacing any.
 * No secrets key configured: 409 `invalid_state` telling the operator what to set.
 */
export async function updateGoogleWalletSettings(
  db: Executor,
  organizerId: string,
  input: GoogleWalletSettingsInput,
  secretsKey: Buffer | undefined,
): Promise<GoogleWalletSettings> {
  const sealingKey = requireWalletSecretsKey(secretsKey);
  if (!/^[0-9]{1,32}$/.test(input.issuer_id)) {
    throw invalid(
      'parameter_invalid',
      'issuer_id must be the Google Wallet issuer id: 1 to 32 digits, as the Google Pay & Wallet Console shows it.',
      'issuer_id',
    );
  }
  const key = parseServiceAccountKey(input.service_account_key);
  const row = await upsertGoogleWalletSettings(db, organizerId, {
    issuer_id: input.issuer_id,
    service_account_email: key.email,
    sealed_private_key: sealSecret(key.privateKeyPem, sealingKey),
    key_id: key.keyId,
  });
  return settingsOf(row);
}

/** DELETE /dashboard/v1/organizer/wallet/google: no more links; nothing to answer. */
export async function deleteGoogleWalletSettings(db: Executor, organizerId: string): Promise<void> {
  await deleteRow(db, organizerId);
}
