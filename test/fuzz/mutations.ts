/**
 * Hostile variations of valid requests: wrong types, boundary and out-of-range numbers,
 * edge strings, missing and extra keys at every depth, deep nesting, malformed and
 * foreign ids, and raw bodies that are not JSON at all.
 *
 * Numerals JSON.stringify cannot write (`-0`, `1e309`, `9007199254740993`) are carried as
 * RawJson and written verbatim by encodeJson().
 */
import fc from 'fast-check';

/** A JSON fragment written as is (a numeral JavaScript would round or refuse). */
class RawJson {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `<raw ${this.text}>`;
  }
}

/** JSON text of a value that may hold RawJson fragments and `__proto__` own keys. */
export function encodeJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(encodeJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${encodeJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Sets an own enumerable property, even `__proto__`. */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function shallowCopy(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) defineKey(copy, key, value[key]);
  return copy;
}

const EDGE_NUMBERS: readonly unknown[] = [
  new RawJson('-0'),
  new RawJson('1e309'),
  new RawJson('-1e309'),
  new RawJson('9007199254740993'),
  new RawJson('1E2'),
  new RawJson('0.0'),
  2 ** 53,
  -(2 ** 53),
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 63,
  0,
  -1,
  1,
  0.5,
  -0.5,
  1e-300,
  Number.MAX_VALUE,
  100000001,
  1000001,
  10001,
  51,
  101,
];

/** Strings no schema should trip on: empty, huge, NUL, surrogates, RTL, emoji, prototype and injection text. */
const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  'a'.repeat(64 * 1024),
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00',
  '👩‍👩‍👧‍👦',
  'e\u0301'.repeat(300),
  '\u202eevil\u202c',
  'שלום עולם',
  'مرحبا',
  '\ufeffbom',
  '\u2028\u2029',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  "' OR '1'='1",
  "'); DROP TABLE orders; --",
  '\\',
  '"',
  '%00',
  '%s%n',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<p>ok</p><iframe src="javascript:alert(1)">',
  'null',
  'true',
  '0',
  '-0',
  '1e309',
  'NaN',
  'Infinity',
  '2030-02-30T10:00:00Z',
  '2030-06-30T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '10000-01-01T00:00:00Z',
  '2030-06-30T19:30:00',
  'urn:uuid:0c2b1a8e-4c1e-4a47-9d1c-3d4f7c6e2a10',
  '{0c2b1a8e-4c1e-4a47-9d1c-3d4f7c6e2a10}',
  '0C2B1A8E-4C1E-4A47-9D1C-3D4F7C6E2A10',
  '0c2b1a8e4c1e4a479d1c3d4f7c6e2a10',
  '00000000-0000-0000-0000-000000000000',
  'https://127.0.0.1/x',
  'http://[::1]/',
  'file:///etc/passwd',
  'ftp://example.test/',
  'https://user:pass@example.test/',
  'a@b',
  'x@example.test\r\nBcc: y@example.test',
  'EUR',
  'eur',
  'Mars/Olympus',
];

const KEYS = [
  'extra',
  '__proto__',
  'constructor',
  'prototype',
  '',
  ' ',
  'ID',
  'Title',
  'id',
  'object',
  'organizer_id',
  '\u0000',
  '\ud800',
  '🎟️',
  'a.b',
  '$where',
  'status',
];

/** Any JSON-ish value of a different kind than a schema expects, including edge numbers and strings. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
    { weight: 3, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(null, true, false, [], {}, [null], [[]], { id: null }, ['a', 1, null], { '': '' }),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );
}

type Path = (string | number)[];

/** Every location in a JSON value: the root, each key and each index. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...prefix, i], out));
  else if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out);
  }
  return out;
}

/** A copy of `value` with the node at `path` replaced by edit(node) (undefined removes it). */
function editAt(value: unknown, path: Path, edit: (node: unknown) => unknown): unknown {
  if (path.length === 0) return edit(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = editAt(copy[head as number], rest, edit);
    if (next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = shallowCopy(value as Record<string, unknown>);
  const next = editAt(copy[head as string], rest, edit);
  if (next === undefined) delete copy[head as string];
  else defineKey(copy, head as string, next);
  return copy;
}

function nest(value: unknown, depth: number, inObjects: boolean): unknown {
  let nested = value;
  for (let i = 0; i < depth; i++) nested = inObjects ? { a: nested } : [nested];
  return nested;
}

type BodyMutation =
  | { kind: 'replace'; at: number; with: unknown }
  | { kind: 'remove'; at: number }
  | { kind: 'addKey'; at: number; key: string; with: unknown }
  | { kind: 'nest'; at: number; depth: number; inObjects: boolean };

export const bodyMutation: fc.Arbitrary<BodyMutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), with: hostileValue() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('addKey' as const),
      at: fc.nat(),
      key: fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 })),
      with: hostileValue(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('nest' as const),
      at: fc.nat(),
      depth: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 28, max: 40 })),
      inObjects: fc.boolean(),
    }),
  },
);

/** Applies a mutation at the at-th location (modulo the number of locations) of a valid body. */
export function applyMutation(body: unknown, mutation: BodyMutation): unknown {
  const paths = pathsOf(body);
  const path = paths[mutation.at % paths.length]!;
  switch (mutation.kind) {
    case 'replace':
      return editAt(body, path, () => mutation.with);
    case 'remove':
      return path.length === 0 ? undefined : editAt(body, path, () => undefined);
    case 'addKey': {
      const objects = paths.filter((p) => {
        const node = p.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], body);
        return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson);
      });
      if (objects.length === 0) return body;
      return editAt(body, objects[mutation.at % objects.length]!, (node) => {
        const copy = shallowCopy(node as Record<string, unknown>);
        defineKey(copy, mutation.key, mutation.with);
        return copy;
      });
    }
    case 'nest':
      return editAt(body, path, (node) => nest(node, mutation.depth, mutation.inObjects));
  }
}

/** Whole bodies that are not a JSON object: not JSON, not UTF-8, deep, huge, duplicated keys. */
export const RAW_BODIES: readonly (string | Buffer)[] = [
  '',
  '   ',
  'null',
  '[]',
  '{}',
  '"text"',
  '42',
  'true',
  '{',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '{"a":NaN}',
  '{"a":undefined}',
  '{"a":1e309}',
  '{"a":-0}',
  '\ufeff{}',
  '{"title":"a","title":"b"}',
  '[{"a":1}]',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"\\u0000":1}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '['.repeat(5000) + ']'.repeat(5000),
  '{"a":'.repeat(33) + '1' + '}'.repeat(33),
  '['.repeat(100000),
  `{"a":"${'x'.repeat(1024 * 1024)}"}`,
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from('{"a":"caf\u00e9"}', 'latin1'),
  'a=1&b=2',
  '<xml/>',
];

/** Path ids that are not a canonical UUID, or not one of this resource. */
export function malformedIds(realId: string): string[] {
  return [
    `urn:uuid:${realId}`,
    `%7B${realId}%7D`,
    realId.replaceAll('-', ''),
    realId.slice(0, -1),
    `${realId}0`,
    `${realId}%00`,
    '%00',
    `%20${realId}`,
    `${realId.slice(0, -1)}g`,
    '..',
    '%2e%2e',
    '%2F',
    'null',
    'undefined',
    '0',
    '-1',
    '1e309',
    '__proto__',
    'constructor',
    'x'.repeat(5000),
    '%ED%A0%80',
    '%FF',
    '%',
    `${realId};`,
    `${realId}.json`,
    encodeURIComponent('\u202e') + realId,
    '00000000-0000-0000-0000-000000000000',
  ];
}

/** Query values as sent on the wire (already percent-encoded where needed). */
export const HOSTILE_QUERY_VALUES: readonly string[] = [
  '',
  '-0',
  '0',
  '-1',
  '1e309',
  '9007199254740993',
  '0x10',
  '%205',
  '5.0',
  '5.5',
  '101',
  '1000000000000',
  'true',
  'null',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%',
  '%E2%80%AE',
  '%F0%9F%8E%9F',
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('<script>'),
  'x'.repeat(5000),
  'urn%3Auuid%3A0c2b1a8e-4c1e-4a47-9d1c-3d4f7c6e2a10',
  '0C2B1A8E-4C1E-4A47-9D1C-3D4F7C6E2A10',
  '__proto__',
  'constructor',
  '+',
  '%2B',
  'a%26b%3Dc',
];
