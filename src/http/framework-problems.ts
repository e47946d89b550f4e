/**
 * Fastify's own errors (its `FST_*` codes) as problems: the status and a sentence the
 * caller can act on, never Fastify's wording or its JSON shape. handleError() looks them
 * up here for errors raised inside the request lifecycle; framework-errors.ts answers
 * those raised while routing. Decisions in docs/operations.md, "One error path".
 */
import type { ErrorCode } from '../errors/codes.ts';

interface FrameworkProblem {
  code: ErrorCode;
  detail: string;
}

/** The request body limit (Fastify's bodyLimit), stated in the 413 detail. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Every FST_* code Fastify 5 can raise while serving a request, with what it answers.
 * (Its other codes are raised at start-up, by a wrong use of its API, and stay 500s.)
 */
const FRAMEWORK_PROBLEMS: Record<string, FrameworkProblem> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    detail: 'Unsupported content type: send the body as application/json.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    detail: `Request body is too large: at most ${BODY_LIMIT_BYTES} bytes.`,
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', detail: 'Request body is empty; send a JSON object.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', detail: 'Request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_request',
    detail: 'Request body length does not match the Content-Length header.',
  },
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: {
    code: 'invalid_request',
    detail: 'This request needs a Content-Type header: send the body as application/json.',
  },
  FST_ERR_ROUTE_MISSING_CONTENT: { code: 'invalid_request', detail: 'This request needs a body.' },
  FST_ERR_VALIDATION: { code: 'invalid_request', detail: 'The request is not valid.' },
  FST_ERR_HANDLER_TIMEOUT: { code: 'handler_timeout', detail: 'The request took too long to handle; retry shortly.' },
};

/** The problem for a Fastify error raised in the request lifecycle, or undefined for any other error. */
export function frameworkProblem(error: { code?: unknown }): FrameworkProblem | undefined {
  return typeof error.code === 'string' && Object.hasOwn(FRAMEWORK_PROBLEMS, error.code)
    ? FRAMEWORK_PROBLEMS[error.code]
    : undefined;
}

/** The 404 detail of a path that names nothing: the API's own sentence under its prefixes. */
export function notFoundDetail(url: string): string {
  const path = url.split('?')[0] ?? '';
  const isApi = path === '/v1' || path.startsWith('/v1/') || path.startsWith('/admin/v1');
  return isApi ? 'Unknown API endpoint.' : 'Not found.';
}
