/**
 * The common passwords the password policy refuses (docs/dashboard.md, "Passwords"): the
 * 49,000-odd most used passwords of breach corpora, as zxcvbn-ts ships them in
 * `@zxcvbn-ts/language-common`. Loaded on the first check, not at start: only sign-up,
 * reset and password change need it.
 */
let common: Promise<ReadonlySet<string>> | undefined;

function load(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())),
  );
  return common;
}

/** Whether the password, in any case, is one of the common passwords. */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await load()).has(password.toLowerCase());
}
