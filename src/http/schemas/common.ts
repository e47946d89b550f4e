/**
 * Schemas shared by every resource: ids, timestamps, the problem body, list envelopes,
 * pagination parameters, and how a route declares its responses. Resource schemas live
 * beside this file, one per resource.
 *
 * A resource schema carries an `$id`: it is registered once (./components.ts) and every
 * route and every other schema points at it with `ref()`, so request validation, response
 * serialization and the OpenAPI document's `components.schemas` are one source
 * (docs/openapi.md).
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { LOWERCASE_KEYWORD } from '../validation.ts';
import { ALL_ERROR_CODES, type ErrorCode } from '../../errors/codes.ts';

/** A UUID in its canonical 8-4-4-4-12 hex form, any case in, lowercase from then on. */
export const Uuid = Type.String({ format: 'uuid', [LOWERCASE_KEYWORD]: true });
/** A timestamp in a response: handlers may return Date, serialized as ISO 8601. */
export const Timestamp = Type.Unsafe<Date | string>(Type.String({ format: 'date-time' }));
/** A timestamp in a request body or query: an ISO 8601 string. */
export const TimestampInput = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Problem = Type.Object(
  {
    type: Type.Literal('about:blank'),
    title: Type.String({ description: 'the HTTP status text' }),
    status: Type.Integer({ description: 'the HTTP status code' }),
    detail: Type.String({ description: 'what went wrong, in words a person can act on' }),
    code: Type.Unsafe<ErrorCode>(
      Type.String({ enum: ALL_ERROR_CODES, description: 'stable machine-readable code (docs/errors.md)' }),
    ),
    param: Type.Optional(Type.String({ description: 'path of the offending field, such as items.0.quantity' })),
  },
  {
    $id: 'Problem',
    description: 'RFC 9457 problem details with a stable code',
    examples: [
      {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'items.0.quantity must be >= 1.',
        code: 'parameter_invalid',
        param: 'items.0.quantity',
      },
    ],
  },
);

/** A reference to a component, typed as the component itself. */
export function ref<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
  if (schema.$id === undefined) throw new Error('ref() takes a schema with an $id (a component)');
  return Type.Unsafe<Static<T>>({ $ref: schema.$id });
}

/** A success response: JSON, described as the component is (or as `description` says). */
export function success<T extends TSchema>(schema: T, description?: string) {
  return {
    description: description ?? schema.description ?? 'Success',
    content: { 'application/json': { schema: schema.$id === undefined ? schema : ref(schema) } },
  };
}

/** Path parameter `{id}`: a malformed UUID answers 404 like an unknown one. */
export const IdParams = Type.Object({ id: Uuid });

export const PAGE_LIMIT_DEFAULT = 25;
const PAGE_LIMIT_MAX = 100;

/** A string enum: errors list the allowed values ("must be one of: a, b"). */
export const StringEnum = <T extends string>(values: readonly T[], opts: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });

export const PaginationQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })),
  starting_after: Type.Optional(
    Type.String({ format: 'uuid', [LOWERCASE_KEYWORD]: true, description: 'id of the last item of the previous page' }),
  ),
};

/**
 * The upper bound's rule, said the same on every list with a time range: one not later
 * than the lower bound answers 400 (src/lib/time-range.ts, docs/validation.md).
 */
export const rangeEndRule = (field: 'created' | 'updated' | 'occurred') =>
  `; must be later than \`${field}_gte\` when both are given, or the answer is 400 \`parameter_invalid\` naming \`${field}_lt\``;

const timeFilter = (column: 'created_at' | 'updated_at', bound: 'gte' | 'lt') =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        bound === 'gte'
          ? `only items whose \`${column}\` is at or after this instant (inclusive); RFC 3339 (docs/validation.md)`
          : `only items whose \`${column}\` is before this instant (exclusive); RFC 3339${rangeEndRule(column === 'created_at' ? 'created' : 'updated')} (docs/validation.md)`,
      examples: ['2026-11-24T22:23:08.685Z'],
    }),
  );

/**
 * The time filters and the order of the lists an integrator polls for changes (orders,
 * tickets; docs/sync.md). With any of them, or `order=updated_asc`, a list holds back items
 * stamped at or after its sync horizon until the transactions that might still write
 * below it have ended.
 */
export const ListViewQuery = {
  created_gte: timeFilter('created_at', 'gte'),
  created_lt: timeFilter('created_at', 'lt'),
  updated_gte: timeFilter('updated_at', 'gte'),
  updated_lt: timeFilter('updated_at', 'lt'),
  order: Type.Optional(
    Type.Unsafe<'created_desc' | 'updated_asc'>({
      type: 'string',
      enum: ['created_desc', 'updated_asc'],
      default: 'created_desc',
      description:
        "`created_desc`: newest first (the default). `updated_asc`: by (`updated_at`, `id`) ascending, the order to poll for changes in: pass back the last item's `updated_at` as `updated_gte` and its `id` as `starting_after` (docs/sync.md)",
    }),
  ),
};

/**
 * A page of a list: `{object: 'list', data, has_more}`. With an `id`, the page is itself a
 * component of that name; items that are components are referenced.
 */
export const ListOf = <T extends TSchema>(item: T, id?: string) =>
  Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item.$id === undefined ? Type.Unsafe<Static<T>>(item) : ref(item)),
      has_more: Type.Boolean({ description: 'true when a next page exists: pass the last id as starting_after' }),
    },
    id === undefined ? {} : { $id: id, description: `A page of ${item.$id ?? 'items'}, in the list's order` },
  );

/** What each error status means, as the OpenAPI document says it. */
const ERROR_DESCRIPTIONS: Readonly<Record<ErrorStatus, string>> = {
  400: 'The request is malformed or a field is invalid (`param` names it)',
  401: 'No API key, or an unknown or revoked one',
  403: 'The key lacks the scope this operation needs',
  404: 'No such resource for this organizer (a malformed id included)',
  409: 'The request conflicts with the resource’s state, or an Idempotency-Key is in use or was used differently',
  413: 'The body is larger than the limit',
  415: 'The body is not application/json',
  429: 'Rate limited: retry after `retry-after` seconds',
  503: 'The database is unavailable, overloaded or busy: retry after `retry-after` seconds',
};
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

const RETRY_AFTER_HEADER = {
  'retry-after': { description: 'seconds to wait before retrying', type: 'integer', minimum: 0 },
};

/**
 * The error responses of an operation, all problem+json: the statuses given, and 429 and
 * 503, which any operation can answer (rate limits, database faults).
 */
export function errorResponses(...statuses: ErrorStatus[]) {
  const all = [...new Set<ErrorStatus>([...statuses, 429, 503])].sort((a, b) => a - b);
  return Object.fromEntries(
    all.map((status) => [
      status,
      {
        description: ERROR_DESCRIPTIONS[status],
        ...(status === 429 || status === 503 ? { headers: RETRY_AFTER_HEADER } : {}),
        content: { 'application/problem+json': { schema: ref(Problem) } },
      },
    ]),
  );
}

/** The body of a DELETE: `{id, object, deleted: true}`, a component named `id`. */
export const DeletedSchema = (object: string, id: string) =>
  Type.Object(
    { id: Uuid, object: Type.Literal(object), deleted: Type.Literal(true) },
    { $id: id, description: `The ${object} was deleted` },
  );
