/**
 * What the Apple and Google Wallet settings share (docs/tickets.md, "Wallet settings and
 * their keys"): a signing key is only ever stored sealed with WALLET_SECRETS_KEY, so a
 * service without that key refuses settings before it reads them.
 */
import { conflict } from '../../errors/domain-error.ts';

/** The operator's secrets key; none configured: 409 `invalid_state` telling the operator what to set. */
export function requireWalletSecretsKey(secretsKey: Buffer | undefined): Buffer {
  if (!secretsKey) {
    throw conflict(
      'invalid_state',
      'Wallet keys cannot be stored: the operator has not set WALLET_SECRETS_KEY (32 random bytes, base64 or hex; docs/operations.md).',
    );
  }
  return secretsKey;
}
