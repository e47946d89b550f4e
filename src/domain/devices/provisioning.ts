/**
 * Provisioning tokens of door devices (docs/dashboard.md, "Door devices"): `mqd_` and 32
 * random bytes in base64url (43 characters), shown once as a pairing code and its QR code,
 * good for ten minutes and for one claim. Only their SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PREFIX = 'mqd_';
const TOKEN_SHAPE = /^mqd_[A-Za-z0-9_-]{43}$/;
const PROVISIONING_TTL_MS = 10 * 60 * 1000;

export interface ProvisioningToken {
  token: string;
  hash: Buffer;
  expiresAt: Date;
}

export function hashProvisioningToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new token, good for PROVISIONING_TTL_MS from `now`. */
export function issueProvisioningToken(now: Date): ProvisioningToken {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashProvisioningToken(token), expiresAt: new Date(now.getTime() + PROVISIONING_TTL_MS) };
}

/** Whether a presented token could be one this service issued (else it is not looked up). */
export function isWellFormedProvisioningToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}
