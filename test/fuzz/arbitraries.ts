/**
 * Valid values from the JSON Schema subset TypeBox emits into the OpenAPI document:
 * object (properties, required, additionalProperties, default), array (items, minItems,
 * maxItems, uniqueItems), string (format uuid/date-time/email/uri, minLength, maxLength,
 * pattern), enum, const, integer/number (minimum, maximum), boolean, null, anyOf/oneOf.
 *
 * "Valid" means valid against the schema. Ids are drawn from the fixture pools (by the
 * field's name) so that a fair share of generated requests also passes the domain rules
 * and reaches a 2xx; the rest answer a 4xx, which the harness checks just the same.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  format?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  [keyword: string]: unknown;
}

/** What generation draws on besides the schema: real ids and values from the fixtures. */
export interface GenerationContext {
  /** Real ids (at the time of the call) for a field or parameter name (`performance_id`, `ticket_ids`, ...); else any real id. */
  idsFor(name: string | undefined): readonly string[];
  /** Real string values for a field name (`code` -> ticket serials, `email` -> buyer emails), if any. */
  valuesFor(name: string | undefined): readonly string[];
  /** The test clock's now, so that generated times are mostly in the future. */
  now: Date;
}

/** Generated strings stay short; the long ones (64 KB) come from the mutations. */
const MAX_GENERATED_LENGTH = 24;
const MAX_GENERATED_ITEMS = 4;

const TIME_ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
  'America/St_Johns',
];

const hasNulOrLoneSurrogate = (text: string) =>
  text.includes('\u0000') || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** Free text in code points (the unit the schema lengths count), any script, no NUL. */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, MAX_GENERATED_LENGTH));
  const chars = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength, maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: max }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Gala 🎭',
        'מופע ערב',
        'Café',
        'e\u0301',
        '<b>bold</b> & more',
        "O'Brien; DROP TABLE x",
        '   padded   ',
        'ـــــ',
        '\u202eRTL',
      ),
    },
  );
  return chars.filter((s) => !hasNulOrLoneSurrogate(s) && [...s].length >= minLength && [...s].length <= maxLength);
}

/** RFC 3339 date-times the API accepts, written in its various spellings. */
function dateTime(now: Date): fc.Arbitrary<string> {
  const base = now.getTime();
  const year = 365 * 24 * 3600 * 1000;
  const instant = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: base - year, max: base + 3 * year }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        0,
        Date.UTC(9999, 11, 31, 22, 0, 0),
        Date.UTC(2038, 0, 19, 3, 14, 8),
        Date.UTC(2032, 1, 29, 12, 0, 0),
      ),
    },
  );
  return fc
    .tuple(
      instant,
      fc.constantFrom('Z', 'z', '+02:00', '-09:30', '+14:00', '+00:00'),
      fc.constantFrom('', '.5', '.123', '.123456789'),
      fc.constantFrom('T', 't', ' '),
    )
    .map(([ms, zone, fraction, separator]) => {
      const offsetMinutes =
        zone.length === 6 ? (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4))) : 0;
      const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
      return `${local.slice(0, 10)}${separator}${local.slice(11)}${fraction}${zone}`;
    })
    .filter((s) => {
      const t = new Date(s.replace(' ', 'T')).getTime();
      return t >= 0 && t <= Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    });
}

function email(ctx: GenerationContext): fc.Arbitrary<string> {
  const known = ctx.valuesFor('email');
  return fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9]{0,8}(?:\.[a-z0-9]{1,5})?@example\.test$/) },
    { weight: 1, arbitrary: fc.emailAddress() },
    ...(known.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...known) }] : []),
  );
}

/** The pools grow as the run creates resources, so an id is picked when the value is built. */
export function pickFrom(pool: () => readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(), fc.uuid()).map(([index, fallback]) => {
    const ids = pool();
    return ids.length > 0 ? ids[index % ids.length]! : fallback;
  });
}

function uuid(ctx: GenerationContext, name: string | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: pickFrom(() => ctx.idsFor(name)) },
    { weight: 1, arbitrary: fc.uuid({ version: [4, 7] }) },
  );
}

function stringOf(schema: JsonSchema, ctx: GenerationContext, name: string | undefined): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 200;
  const fits = (s: string) => [...s].length >= min && [...s].length <= max;
  switch (schema.format) {
    case 'uuid':
      return uuid(ctx, name);
    case 'date-time':
      return dateTime(ctx.now);
    case 'email':
      return email(ctx).filter(fits);
    case 'uri':
      return fc.webUrl({ validSchemes: ['https'] }).filter(fits);
  }
  if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  const known = ctx.valuesFor(name).filter(fits);
  if (name === 'url')
    return fc
      .oneof(fc.constant('https://hooks.example.test/marquee'), fc.webUrl({ validSchemes: ['https', 'http'] }))
      .filter(fits);
  if (name === 'timezone') return fc.oneof(fc.constantFrom(...TIME_ZONES), text(min, max));
  if (known.length > 0)
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: text(min, max) });
  return text(min, max);
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (integer ? -1_000_000 : -1e6);
  const max = schema.maximum ?? (integer ? 1_000_000 : 1e6);
  if (!integer) return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  // Small values pass domain rules (capacity left, quantities) more often than huge ones.
  const small = fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 5) });
  return fc.oneof(
    { weight: 3, arbitrary: small },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

/** An arbitrary of values valid against `schema`; `name` is the field or parameter it is for. */
export function validValue(schema: JsonSchema, ctx: GenerationContext, name?: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) return fc.oneof(...union.map((branch) => validValue(branch, ctx, name)));
  const type = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? undefined : [schema.type];
  if (type !== undefined && type.length > 1)
    return fc.oneof(...type.map((t) => validValue({ ...schema, type: t }, ctx, name)));
  switch (type?.[0]) {
    case 'object':
      return objectOf(schema, ctx);
    case 'array':
      return arrayOf(schema, ctx, name);
    case 'string':
      return stringOf(schema, ctx, name);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(schema: JsonSchema, ctx: GenerationContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(properties)) model[key] = validValue(property, ctx, key);
  return fc.record(model, { requiredKeys: schema.required ?? [] });
}

function arrayOf(schema: JsonSchema, ctx: GenerationContext, name: string | undefined): fc.Arbitrary<unknown[]> {
  const items = validValue(schema.items ?? {}, ctx, name);
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS));
  if (schema.uniqueItems) return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(items, { minLength, maxLength });
}
