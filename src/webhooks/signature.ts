/**
 * Webhook secrets and signatures, per the Standard Webhooks convention:
 * a secret is `whsec_` + base64 key bytes, and `webhook-signature` is
 * `v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)).
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_KEY_BYTES = 32;
/** Characters of key material shown at each end of a preview (8 in total at most). */
const PREVIEW_EDGE_CHARS = 4;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_KEY_BYTES).toString('base64');
}

/**
 * An abbreviation safe to show in listings, e.g. `whsec_MfKQ…LaSw`. It
 * reveals at most 8 characters of key material, and none for a key too short
 * for that to be a small fraction of it.
 */
export function secretPreview(secret: string): string {
  const keyText = (secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret).replace(/=+$/, '');
  if (keyText.length < 4 * PREVIEW_EDGE_CHARS) return `${SECRET_PREFIX}…`;
  return `${SECRET_PREFIX}${keyText.slice(0, PREVIEW_EDGE_CHARS)}…${keyText.slice(-PREVIEW_EDGE_CHARS)}`;
}

/** The `webhook-signature` header value for one delivery attempt. */
export function signWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKeyBytes(secret))
    .update(`${msgId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

function secretKeyBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`Webhook secret must start with ${SECRET_PREFIX}.`);
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('Webhook secret has no key material.');
  return key;
}
