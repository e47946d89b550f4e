/**
 * The one place that turns any error into an RFC 9457 problem:
 * {type: "about:blank", title, status, detail, code, param?} (docs/errors.md).
 * The domain throws DomainError with a code from src/errors/codes.ts; this module only
 * maps the code to a status and writes the body.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TIMESTAMP_RANGE_TEXT } from '../lib/timestamps.ts';
import { frameworkProblem } from './framework-problems.ts';
import { classifyDatabaseError, type DatabaseFault } from '../db/errors.ts';
import type { ErrorCode } from '../errors/codes.ts';
import { DomainError } from '../errors/domain-error.ts';

/** The status each code answers with: the one mapping from the domain's codes to HTTP. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_request: 400,
  invalid_json: 400,
  parameter_missing: 400,
  parameter_unknown: 400,
  parameter_invalid: 400,
  empty_update: 400,
  invalid_cursor: 400,
  not_on_sale: 400,
  insufficient_inventory: 400,
  limit_reached: 400,
  idempotency_key_invalid: 400,
  password_too_weak: 400,
  link_invalid: 400,
  unauthorized: 401,
  totp_required: 401,
  totp_invalid: 401,
  forbidden_scope: 403,
  role_forbidden: 403,
  csrf_failed: 403,
  no_membership: 403,
  unknown_endpoint: 404,
  resource_not_found: 404,
  resource_exists: 409,
  invalid_state: 409,
  concurrent_modification: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_flight: 409,
  idempotency_key_lease_lost: 409,
  last_owner: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  expectation_unsupported: 417,
  request_timeout: 408,
  rate_limited: 429,
  database_unavailable: 503,
  database_overloaded: 503,
  resource_busy: 503,
  handler_timeout: 503,
  shutting_down: 503,
  internal_error: 500,
});

/** A domain error that also carries response headers (authentication, rate limits). */
export class ApiError extends DomainError {
  constructor(
    code: ErrorCode,
    detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, detail);
    this.name = 'ApiError';
  }
}

export const unauthorized = (realm: string) =>
  new ApiError('unauthorized', 'A valid API key is required: send it as "Authorization: Bearer <key>".', {
    'www-authenticate': `Bearer realm="${realm}"`,
  });

interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  param?: string;
}

/** The problem body of a code; `status` overrides the code's own only for a passed-through 4xx. */
export function problem(code: ErrorCode, detail: string, param?: string, status = ERROR_STATUS[code]): Problem {
  const body: Problem = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code };
  // A param names a field; an unnamed one (an empty query key) has nothing to name.
  if (param !== undefined && param !== '') body.param = param;
  return body;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function sendProblem(reply: FastifyReply, body: Problem, headers: Record<string, string> = {}) {
  return reply.code(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** The problem of a domain error (and the headers of an ApiError). */
function sendDomainError(reply: FastifyReply, error: DomainError) {
  return sendProblem(
    reply,
    problem(error.code, error.detail, error.param),
    error instanceof ApiError ? error.headers : {},
  );
}

/** What a caller reads for each passing database fault (src/db/errors.ts); all are 503 + retry-after. */
/** The code of each passing database fault. */
export const DATABASE_FAULT_CODES: Readonly<Record<DatabaseFault, ErrorCode>> = Object.freeze({
  unavailable: 'database_unavailable',
  overloaded: 'database_overloaded',
  busy: 'resource_busy',
});

export const DATABASE_FAULT_DETAILS: Readonly<Record<DatabaseFault, string>> = Object.freeze({
  unavailable: 'The database is temporarily unavailable; retry shortly.',
  overloaded: 'The database is overloaded and did not answer in time; retry shortly.',
  busy: 'The resource is busy with a concurrent request; retry shortly.',
});

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns ajv's first error into a sentence that names the field. */
function describeValidationError(error: AjvError, part: string): string {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : part;
  const field = where === part ? part : `\`${where}\``;
  switch (error.keyword) {
    case 'additionalProperties':
      return `Unknown field \`${where === part ? '' : `${where}.`}${String(error.params.additionalProperty)}\` in ${part}.`;
    case 'required':
      return `Missing required field \`${where === part ? '' : `${where}.`}${String(error.params.missingProperty)}\` in ${part}.`;
    case 'minLength':
      return `${field} must be at least ${String(error.params.limit)} character${error.params.limit === 1 ? '' : 's'}.`;
    case 'maxLength':
      return `${field} must be at most ${String(error.params.limit)} characters.`;
    case 'minimum':
      return `${field} must be at least ${String(error.params.limit)}.`;
    case 'maximum':
      return `${field} must be at most ${String(error.params.limit)}.`;
    case 'minItems':
      return `${field} must have at least ${String(error.params.limit)} item${error.params.limit === 1 ? '' : 's'}.`;
    case 'maxItems':
      return `${field} must have at most ${String(error.params.limit)} items.`;
    case 'enum':
      return `${field} must be one of: ${(error.params.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'const':
      return `${field} must be ${JSON.stringify(error.params.allowedValue)}.`;
    case 'type':
      if (field === 'body') return 'Request body must be a JSON object.';
      return `${field} must be of type ${String(error.params.type)}.`;
    case 'format':
      return `${field} ${FORMAT_RULES[String(error.params.format)] ?? `must be a valid ${String(error.params.format)}`}.`;
    default:
      return `${field} ${error.message ?? 'is invalid'}.`;
  }
}

/** How each string format is written, in the words of a 400 (docs/validation.md). */
const FORMAT_RULES: Record<string, string> = {
  uuid: 'must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits)',
  'date-time': `must be an RFC 3339 date-time with a time zone, such as 2030-06-30T19:30:00Z, ${TIMESTAMP_RANGE_TEXT} (seconds 00 to 59)`,
};

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

/** The code and the offending field of ajv's error, beside describeValidationError's sentence. */
function validationCodeOf(error: AjvError, part: string): { code: ErrorCode; param?: string } {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '';
  const prefix = where === '' ? '' : `${where}.`;
  switch (error.keyword) {
    case 'additionalProperties':
      return { code: 'parameter_unknown', param: `${prefix}${String(error.params.additionalProperty)}` };
    case 'required':
      return { code: 'parameter_missing', param: `${prefix}${String(error.params.missingProperty)}` };
    default:
      if (where === '') return { code: part === 'body' ? 'invalid_json' : 'invalid_request' };
      return { code: 'parameter_invalid', param: where };
  }
}

/** Fastify error handler: every thrown thing leaves as a problem, 5xx without internals. */
export function handleError(
  error: FastifyError & { validation?: AjvError[]; validationContext?: string; code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof DomainError) return sendDomainError(reply, error);
  if (error.validation && error.validation.length > 0) {
    const part = error.validationContext ?? 'body';
    // A malformed id in a path is indistinguishable from an unknown one.
    if (part === 'params') {
      const resource = (request.routeOptions.config as { resource?: string } | undefined)?.resource ?? 'Resource';
      return sendProblem(reply, problem('resource_not_found', `${resource} not found.`));
    }
    const first = pickMostUsefulError(error.validation);
    const partName = PART_NAMES[part] ?? part;
    const { code, param } = validationCodeOf(first, partName);
    return sendProblem(reply, problem(code, describeValidationError(first, partName), param));
  }
  // Fastify's own errors (FST_*): each with its status and a sentence of ours.
  const framework = frameworkProblem(error);
  if (framework) return sendProblem(reply, problem(framework.code, framework.detail));
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return sendProblem(reply, problem('invalid_json', 'Request body is not valid JSON.'));
  }
  // A lost connection, a timeout or a concurrent transaction: the client retries.
  const databaseFault = classifyDatabaseError(error);
  if (databaseFault) {
    request.log.warn({ err: error, databaseFault }, 'database fault answered 503');
    return sendProblem(reply, problem(DATABASE_FAULT_CODES[databaseFault], DATABASE_FAULT_DETAILS[databaseFault]), {
      'retry-after': '1',
    });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return sendProblem(reply, problem('invalid_request', error.message, undefined, error.statusCode));
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, internalErrorProblem(request.id));
}

/** The 500 body: no internals, the request id to quote. */
export function internalErrorProblem(requestId: string): Problem {
  return problem('internal_error', `Internal server error. Quote request id ${requestId} to support.`);
}

/** ajv reports the failed branches of anyOf first; the branch-level message is clearer. */
function pickMostUsefulError(errors: AjvError[]): AjvError {
  return (
    errors.find((e) => e.keyword === 'additionalProperties') ??
    errors.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'type') ??
    errors[0]!
  );
}
