/**
 * Fastify's `frameworkErrors` option: errors it raises while routing, before any hook
 * ran, answered as problems with the same headers as every other response (the root
 * onRequest hook, which sets them otherwise, has not run for these).
 *
 * - FST_ERR_BAD_URL (a malformed percent-escape such as `/v1/events/%ZZ`) and
 *   FST_ERR_MAX_PARAM_LENGTH (a path segment over 100 characters, which no id is): the
 *   path names nothing that exists, so it answers 404 like an unknown path.
 * - Anything else (FST_ERR_ASYNC_CONSTRAINT; the API uses no async constraints) is a 500.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { internalErrorProblem, problem, sendProblem } from './errors.ts';
import { notFoundDetail } from './framework-problems.ts';
import { setResponseConventions } from './response-conventions.ts';

export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  setResponseConventions(reply, request.id);
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendProblem(reply, problem('unknown_endpoint', notFoundDetail(request.raw.url ?? '')));
    return;
  }
  request.log.error({ err: error }, 'routing failed');
  void sendProblem(reply, internalErrorProblem(request.id));
}
