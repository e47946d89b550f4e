/**
 * Passwords (docs/dashboard.md, "Passwords"): a policy a person can follow, argon2id
 * hashes (@node-rs/argon2 with its defaults: 19 MiB, 2 passes, 1 lane, the OWASP
 * minimum), and a dummy verification so that signing in with an unknown address costs
 * what a wrong password does.
 */
import { hash, verify } from '@node-rs/argon2';
import { invalid } from '../../errors/domain-error.ts';
import { isCommonPassword } from './common-passwords.ts';

const MIN_LENGTH = 12;
const MAX_LENGTH = 256;

/** Refuses a password that breaks the policy with a 400 `password_too_weak` naming `param`. */
export async function checkPasswordPolicy(password: string, context: { email: string; param: string }): Promise<void> {
  const length = [...password].length;
  const refuse = (detail: string) => invalid('password_too_weak', detail, context.param);
  if (length < MIN_LENGTH)
    throw refuse(
      `The password must be at least ${MIN_LENGTH} characters long; it has ${length}. A few unrelated words make a long password that is easy to remember.`,
    );
  if (length > MAX_LENGTH)
    throw refuse(`The password must be at most ${MAX_LENGTH} characters long; it has ${length}.`);
  const lower = password.toLowerCase();
  const email = context.email.toLowerCase();
  // The local part ends at the last @: a quoted local part may hold one.
  const localPart = email.slice(0, Math.max(0, email.lastIndexOf('@')));
  if (lower === email || lower === localPart)
    throw refuse('The password must not be your e-mail address or its name part.');
  if (await isCommonPassword(password))
    throw refuse(
      'This password is one of the most common passwords and would be guessed first: choose another (a few unrelated words make a good one).',
    );
}

export function hashPassword(password: string): Promise<string> {
  // @node-rs/argon2's default algorithm is argon2id (Algorithm.Argon2id, a const enum).
  return hash(password);
}

/** Whether the password matches the hash; false, never a throw, for a malformed hash. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies against a hash made once with the same parameters, and answers false: the
 * unknown-address branch of sign-in then takes the time of a wrong password.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('a dummy password nobody has').catch((error: unknown) => {
    dummyHash = undefined; // a failed hash is not memoised: the next sign-in tries again
    throw error;
  });
  await verifyPassword(await dummyHash, password);
  return false;
}
