/**
 * Secrets handed to a browser or a mailbox: session ids (256 bits) and one-time link
 * tokens (192 bits). Only their SHA-256 is stored; a presented secret is looked up by its
 * hash, so the database never holds one that would work if it leaked.
 */
import { createHash, randomBytes } from 'node:crypto';

interface IssuedSecret {
  /** What the browser or the link carries. */
  token: string;
  /** What the database keeps. */
  hash: Buffer;
}

export function hashSecret(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function issueSecret(bytes: 24 | 32): IssuedSecret {
  const token = randomBytes(bytes).toString('base64url');
  return { token, hash: hashSecret(token) };
}

/** A presented secret of the right shape: base64url, at most a few hundred characters. */
export function isWellFormedSecret(token: string): boolean {
  return token.length >= 16 && token.length <= 128 && /^[A-Za-z0-9_-]+$/.test(token);
}
