/**
 * The closed set of error codes every problem body carries in `code` (docs/errors.md),
 * each with its kind. A new error site picks one of these; a new code is added here,
 * given its status in src/http/errors.ts and documented in docs/errors.md.
 */
type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported'
  | 'timeout'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export const ERROR_CODES = {
  invalid_request: 'invalid',
  invalid_json: 'invalid',
  parameter_missing: 'invalid',
  parameter_unknown: 'invalid',
  parameter_invalid: 'invalid',
  empty_update: 'invalid',
  invalid_cursor: 'invalid',
  not_on_sale: 'invalid',
  insufficient_inventory: 'invalid',
  limit_reached: 'invalid',
  idempotency_key_invalid: 'invalid',
  password_too_weak: 'invalid',
  link_invalid: 'invalid',
  unauthorized: 'unauthenticated',
  totp_required: 'unauthenticated',
  totp_invalid: 'unauthenticated',
  forbidden_scope: 'forbidden',
  role_forbidden: 'forbidden',
  csrf_failed: 'forbidden',
  no_membership: 'forbidden',
  unknown_endpoint: 'not_found',
  resource_not_found: 'not_found',
  resource_exists: 'conflict',
  invalid_state: 'conflict',
  concurrent_modification: 'conflict',
  idempotency_key_reused: 'conflict',
  idempotency_key_in_flight: 'conflict',
  idempotency_key_lease_lost: 'conflict',
  last_owner: 'conflict',
  payload_too_large: 'too_large',
  headers_too_large: 'too_large',
  unsupported_media_type: 'unsupported',
  expectation_unsupported: 'unsupported',
  request_timeout: 'timeout',
  rate_limited: 'rate_limited',
  database_unavailable: 'unavailable',
  database_overloaded: 'unavailable',
  resource_busy: 'unavailable',
  handler_timeout: 'unavailable',
  shutting_down: 'unavailable',
  internal_error: 'internal',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;
/** The codes of one kind, e.g. CodeOf<'conflict'>. */
export type CodeOf<K extends ErrorKind> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends K ? C : never;
}[ErrorCode];

/** Every code, in the order above: the OpenAPI Problem enum and docs/errors.md list them. */
export const ALL_ERROR_CODES = Object.keys(ERROR_CODES) as ErrorCode[];
