/**
 * The password policy, argon2id hashing and the dummy verification of sign-in
 * (docs/dashboard.md, "Passwords" and "Sign-in failures"), without HTTP or a database.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isCommonPassword } from '../../src/domain/people/common-passwords.ts';
import {
  checkPasswordPolicy,
  hashPassword,
  verifyAgainstDummy,
  verifyPassword,
} from '../../src/domain/people/passwords.ts';

const EMAIL = 'Grace.Hopper.Navy@example.com';
const GOOD = 'violet kettle under tram';

/** The refusal `checkPasswordPolicy` must throw: a 400 `password_too_weak` on `param`. */
function tooWeak(detail: string, param = 'new_password') {
  return { name: 'DomainError', code: 'password_too_weak', param, detail };
}

const COMMON =
  'This password is one of the most common passwords and would be guessed first: choose another (a few unrelated words make a good one).';
const IS_EMAIL = 'The password must not be your e-mail address or its name part.';

describe('checkPasswordPolicy', () => {
  test('at least 12 characters, counted as code points, with the count in the detail', async () => {
    await assert.rejects(
      checkPasswordPolicy('Tr0ub4dor', { email: EMAIL, param: 'new_password' }),
      tooWeak(
        'The password must be at least 12 characters long; it has 9. A few unrelated words make a long password that is easy to remember.',
      ),
    );
    const elevenCodePoints = 'ticket🎫🎫🎫🎫🎫';
    assert.equal(elevenCodePoints.length, 16, 'UTF-16 units');
    await assert.rejects(
      checkPasswordPolicy(elevenCodePoints, { email: EMAIL, param: 'password' }),
      tooWeak(
        'The password must be at least 12 characters long; it has 11. A few unrelated words make a long password that is easy to remember.',
        'password',
      ),
    );
    await checkPasswordPolicy('ticket🎫🎫🎫🎫🎫🎫', { email: EMAIL, param: 'password' });
    await checkPasswordPolicy('12 chars ok!', { email: EMAIL, param: 'password' });
  });

  test('at most 256 characters', async () => {
    await assert.rejects(
      checkPasswordPolicy('x'.repeat(257), { email: EMAIL, param: 'new_password' }),
      tooWeak('The password must be at most 256 characters long; it has 257.'),
    );
    await checkPasswordPolicy('x'.repeat(256), { email: EMAIL, param: 'new_password' });
  });

  test('not one of the common passwords, in any case', async () => {
    for (const password of ['qwerty123456', 'QWERTY123456', '1qaz2wsx3edc', 'LeaveMeAlone'])
      await assert.rejects(checkPasswordPolicy(password, { email: EMAIL, param: 'new_password' }), tooWeak(COMMON));
  });

  test('not the e-mail address or its local part, in any case', async () => {
    for (const password of ['grace.hopper.navy@example.com', 'GRACE.HOPPER.NAVY@EXAMPLE.COM', 'grace.hopper.NAVY'])
      await assert.rejects(
        checkPasswordPolicy(password, { email: EMAIL, param: 'password' }),
        tooWeak(IS_EMAIL, 'password'),
      );
    await assert.rejects(
      checkPasswordPolicy('"at@sign.local"', { email: '"at@sign.local"@example.com', param: 'password' }),
      tooWeak(IS_EMAIL, 'password'),
      'the local part ends at the last @',
    );
    await checkPasswordPolicy('grace.hopper.navy@example', { email: EMAIL, param: 'password' });
  });

  test('a long, uncommon password that is not the address passes', async () => {
    assert.equal(await checkPasswordPolicy(GOOD, { email: EMAIL, param: 'new_password' }), undefined);
  });
});

describe('isCommonPassword', () => {
  test('the whole list, whatever the length, compared in lower case', async () => {
    assert.equal(await isCommonPassword('password'), true);
    assert.equal(await isCommonPassword('PassWord'), true);
    assert.equal(await isCommonPassword('123456'), true);
    assert.equal(await isCommonPassword('qwertyuiop'), true);
    assert.equal(await isCommonPassword('qwerty123456'), true);
    assert.equal(await isCommonPassword(GOOD), false);
    assert.equal(await isCommonPassword(''), false);
  });
});

describe('hashPassword and verifyPassword', () => {
  test('an argon2id hash with the library defaults (19 MiB, 2 passes, 1 lane) that verifies', async () => {
    const hash = await hashPassword(GOOD);
    assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.equal(await verifyPassword(hash, GOOD), true);
    assert.equal(await verifyPassword(hash, `${GOOD} `), false);
    assert.equal(await verifyPassword(hash, GOOD.toUpperCase()), false);
    assert.notEqual(await hashPassword(GOOD), hash, 'a new salt each time');
  });

  test('a malformed hash answers false, never a throw', async () => {
    for (const malformed of ['', 'not a hash', '$argon2id$v=19$m=19456,t=2,p=1$short', '$2b$10$abcdefghijklmnopqrstuv'])
      assert.equal(await verifyPassword(malformed, GOOD), false, malformed);
  });
});

describe('verifyAgainstDummy', () => {
  test('answers false whatever the password, even the one the dummy hash was made of', async () => {
    assert.equal(await verifyAgainstDummy(GOOD), false);
    assert.equal(await verifyAgainstDummy(''), false);
    assert.equal(await verifyAgainstDummy('a dummy password nobody has'), false);
  });
});
