/**
 * Schemas shared by every resource: ids, timestamps, the problem body, list envelopes
 * and pagination parameters. Resource schemas live beside this file, one per resource.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { LOWERCASE_KEYWORD } from '../validation.ts';
import { ALL_ERROR_CODES, type ErrorCode } from '../../errors/codes.ts';

/** A UUID in its canonical 8-4-4-4-12 hex form, any case in, lowercase from then on. */
export const Uuid = Type.String({ format: 'uuid', [LOWERCASE_KEYWORD]: true });
/** A timestamp in a response: handlers may return Date, serialized as ISO 8601. */
export const Timestamp = Type.Unsafe<Date | string>(Type.String({ format: 'date-time' }));
/** A timestamp in a request body or query: an ISO 8601 string. */
export const TimestampInput = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProblemSchema = Type.Object(
  {
    type: Type.Literal('about:blank'),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.Unsafe<ErrorCode>(
      Type.String({ enum: ALL_ERROR_CODES, description: 'stable machine-readable code (docs/errors.md)' }),
    ),
    param: Type.Optional(Type.String({ description: 'path of the offending field, such as items.0.quantity' })),
  },
  { description: 'RFC 9457 problem details with a stable code' },
);

/** Path parameter `{id}`: a malformed UUID answers 404 like an unknown one. */
export const IdParams = Type.Object({ id: Uuid });

export const PAGE_LIMIT_DEFAULT = 25;
const PAGE_LIMIT_MAX = 100;

export const PaginationQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })),
  starting_after: Type.Optional(
    Type.String({ format: 'uuid', [LOWERCASE_KEYWORD]: true, description: 'id of the last item of the previous page' }),
  ),
};

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
  });

/** The error responses every authenticated route can give, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof ProblemSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ProblemSchema]));
}

export const DeletedSchema = (object: string) =>
  Type.Object({ id: Uuid, object: Type.Literal(object), deleted: Type.Literal(true) });
