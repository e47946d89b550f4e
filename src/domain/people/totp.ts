/**
 * The TOTP second factor (docs/dashboard.md, "Profile"): RFC 6238 with the authenticator
 * apps' defaults (SHA-1, 6 digits, 30 s), through otplib. A code is good once: the step
 * it was accepted at is stored and a later code must come from a later step. The clock
 * is the caller's, so tests need no waiting. Ten recovery codes stand in for a lost
 * device, each good once, stored as SHA-256.
 */
import { createHash, randomInt } from 'node:crypto';
import { generateSecret, generateSync, generateURI, verifySync } from 'otplib';

const PERIOD_SECONDS = 30;
/** One step either side: a phone clock 30 s off still works. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(input: { secret: string; email: string; issuer: string }): string {
  return generateURI({ issuer: input.issuer, label: input.email, secret: input.secret });
}

/** The otpauth URI as a PNG QR code, a data: URL the console shows as an image. */
export async function totpQrCode(uri: string): Promise<string> {
  // qrcode loads with the first enrolment (docs/architecture.md, "Start-up").
  const { default: QRCode } = await import('qrcode');
  return QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
}

/** The code an app shows at `now` (for tests and for checking an app's clock). */
export function totpCodeAt(secret: string, now: Date): string {
  return generateSync({ secret, epoch: Math.floor(now.getTime() / 1000) });
}

/**
 * The time step the code belongs to (now, or one step either side), or null when it
 * matches none or its step is not after `lastStep`.
 */
export function verifyTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const epoch = Math.floor(now.getTime() / 1000);
  // A last step past the window (the clock went back since) leaves no step to accept;
  // otplib throws for it rather than answering no.
  if (lastStep !== null && lastStep >= Math.floor((epoch + TOLERANCE_SECONDS) / PERIOD_SECONDS)) return null;
  const result = verifySync({
    secret,
    token: code,
    epoch,
    epochTolerance: TOLERANCE_SECONDS,
    ...(lastStep === null ? {} : { afterTimeStep: lastStep }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

/** No 0/O, 1/l/I: a code read off paper is typed back right. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_CODE_COUNT = 10;

/** Ten codes of the form `xxxxx-xxxxx`: ten characters of a 31-letter alphabet, about 49 bits each. */
export function newRecoveryCodes(): string[] {
  const part = () => Array.from({ length: 5 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${part()}-${part()}`);
}

function normalise(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

export function hashRecoveryCode(code: string): Buffer {
  return createHash('sha256').update(normalise(code), 'utf8').digest();
}

/** A recovery code rather than an app's 6 digits: ten letters and digits, dash and spaces aside. */
export function looksLikeRecoveryCode(input: string): boolean {
  return /^[a-z0-9]{10}$/.test(normalise(input));
}
