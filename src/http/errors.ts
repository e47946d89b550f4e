/**
 * The one closed set of API errors and the one place that turns any error into an
 * RFC 9457 problem: {type: "about:blank", title, status, detail}.
 * Domain code throws these factories; nothing else writes an error body.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TIMESTAMP_RANGE_TEXT } from '../lib/timestamps.ts';
import { frameworkProblem } from './framework-problems.ts';
import { classifyDatabaseError, type DatabaseFault } from '../db/errors.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export const badRequest = (detail: string) => new ApiError(400, detail);
export const notFound = (what: string) => new ApiError(404, `${what} not found.`);
export const conflict = (detail: string) => new ApiError(409, detail);
export const forbidden = (detail: string) => new ApiError(403, detail);
export const unknownEndpoint = () => new ApiError(404, 'Unknown API endpoint.');
export const unauthorized = (realm: string) =>
  new ApiError(401, 'A valid API key is required: send it as "Authorization: Bearer <key>".', {
    'www-authenticate': `Bearer realm="${realm}"`,
  });
export const tooManyRequests = (detail: string) =>
  new ApiError(429, detail, { 'retry-after': '60' });

export interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
}

export function problem(status: number, detail: string): Problem {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail };
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function sendProblem(reply: FastifyReply, status: number, detail: string, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem(status, detail)));
}

/** What a caller reads for each passing database fault (src/db/errors.ts); all are 503 + retry-after. */
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
export function describeValidationError(error: AjvError, part: string): string {
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

/** Fastify error handler: every thrown thing leaves as a problem, 5xx without internals. */
export function handleError(error: FastifyError & { validation?: AjvError[]; validationContext?: string; code?: string }, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    return sendProblem(reply, error.status, error.detail, error.headers);
  }
  if (error.validation && error.validation.length > 0) {
    const part = error.validationContext ?? 'body';
    // A malformed id in a path is indistinguishable from an unknown one.
    if (part === 'params') {
      const resource = (request.routeOptions.config as { resource?: string } | undefined)?.resource ?? 'Resource';
      return sendProblem(reply, 404, `${resource} not found.`);
    }
    const first = pickMostUsefulError(error.validation);
    return sendProblem(reply, 400, describeValidationError(first, PART_NAMES[part] ?? part));
  }
  // Fastify's own errors (FST_*): each with its status and a sentence of ours.
  const framework = frameworkProblem(error);
  if (framework) return sendProblem(reply, framework.status, framework.detail);
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return sendProblem(reply, 400, 'Request body is not valid JSON.');
  }
  // A lost connection, a timeout or a concurrent transaction: the client retries.
  const databaseFault = classifyDatabaseError(error);
  if (databaseFault) {
    request.log.warn({ err: error, databaseFault }, 'database fault answered 503');
    return sendProblem(reply, 503, DATABASE_FAULT_DETAILS[databaseFault], { 'retry-after': '1' });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return sendProblem(reply, error.statusCode, error.message);
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, 500, `Internal server error. Quote request id ${request.id} to support.`);
}

/** ajv reports the failed branches of anyOf first; the branch-level message is clearer. */
function pickMostUsefulError(errors: AjvError[]): AjvError {
  return errors.find((e) => e.keyword === 'additionalProperties') ?? errors.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'type') ?? errors[0]!;
}
