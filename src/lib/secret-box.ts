/**
 * Secrets at rest (docs/tickets.md, "Wallet settings"): an organizer's wallet signing keys
 * are stored encrypted with AES-256-GCM under a key the operator gives in the environment
 * (WALLET_SECRETS_KEY), so a copy of the database alone does not hold them.
 *
 * The sealed form is `v1.<iv>.<tag>.<ciphertext>`, each part base64url. The version lets a
 * later scheme sit beside this one; the authentication tag makes a tampered or foreign
 * value fail to open instead of yielding garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;

/** The key from its configured text: 32 bytes as base64 or hex; undefined when it is not that. */
export function parseSecretsKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

export function sealSecret(plaintext: string, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The plaintext of a sealed value; throws when the key is not the one it was sealed with. */
export function openSecret(sealed: string, key: Buffer): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('secret-box: not a sealed value');
  }
  const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
