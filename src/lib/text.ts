/**
 * What a stored string may hold (docs/validation.md): any Unicode scalar value except
 * U+0000. PostgreSQL refuses NUL in text and json, and an unpaired UTF-16 surrogate has no
 * UTF-8 form: it would be refused in json or silently replaced by U+FFFD in text, so the
 * answer of a write would differ from the next read. Both are refused at the edge.
 */

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!isWellFormedUnicode(text)) return 'must be valid Unicode (it contains an unpaired surrogate)';
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** String.prototype.isWellFormed (ES2024), spelled out for the ES2022 library types. */
function isWellFormedUnicode(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
