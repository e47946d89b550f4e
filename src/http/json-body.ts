/**
 * The one body parser. JSON is the only body the API takes (anything else answers 415),
 * and an empty body is "no body" rather than an error, because clients often send
 * `content-type: application/json` on body-less POSTs such as check_in.
 *
 * Before any other work sees a body, it must be (docs/validation.md):
 * - valid UTF-8 (never silently replaced by U+FFFD),
 * - nested at most MAX_JSON_DEPTH levels (checked on the text, before parsing, so
 *   nothing downstream can recurse deeply),
 * - free of NUL characters and unpaired surrogates in every key and string value,
 * - free of `__proto__` keys and `constructor.prototype` (prototype poisoning).
 * Each refusal is a 400 naming the field.
 */
import type { FastifyInstance } from 'fastify';
import { invalid } from '../errors/domain-error.ts';
import { jsonDepthExceeds } from '../lib/json-depth.ts';
import { unstorableTextReason } from '../lib/text.ts';

/** Deeper than any request schema needs (the deepest is about six levels). */
const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalid('invalid_json', 'Request body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw invalid(
      'invalid_json',
      `Request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('invalid_json', 'Request body is not valid JSON.');
  }
  checkStrings(value, []);
  return value;
}

/** The field's path as `param` names it; none for the body itself. */
function paramOf(path: readonly (string | number)[]): string | undefined {
  return path.length === 0 ? undefined : path.join('.');
}

function fieldName(path: readonly (string | number)[]): string {
  return path.length === 0 ? 'Request body' : `\`${path.join('.')}\``;
}

/** Walks the parsed body (depth is bounded above) and refuses what cannot be stored. */
function checkStrings(value: unknown, path: (string | number)[]): void {
  if (typeof value === 'string') {
    const reason = unstorableTextReason(value);
    if (reason) throw invalid('parameter_invalid', `${fieldName(path)} ${reason}.`, paramOf(path));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkStrings(item, [...path, index]));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyPath = [...path, key];
    const keyReason = unstorableTextReason(key);
    if (keyReason)
      throw invalid(
        'parameter_unknown',
        `A key in ${path.length === 0 ? 'the request body' : fieldName(path)} ${keyReason}.`,
        paramOf(path),
      );
    if (
      key === '__proto__' ||
      (key === 'constructor' && item !== null && typeof item === 'object' && Object.hasOwn(item as object, 'prototype'))
    ) {
      throw invalid('parameter_unknown', `${fieldName(keyPath)} is not an allowed key.`, paramOf(keyPath));
    }
    checkStrings(item, keyPath);
  }
}

/**
 * A preValidation hook for an operation whose body is optional (settle, refund): no body
 * is validated as `{}`, so every field takes its default.
 */
export async function bodyOptional(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
