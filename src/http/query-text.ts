/**
 * Query parameters obey the same text rule as bodies (docs/validation.md): a decoded
 * value holding NUL or an unpaired surrogate answers 400 naming the parameter, before
 * validation, so no filter ever reaches SQL with text PostgreSQL refuses.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { invalid } from '../errors/domain-error.ts';
import { unstorableTextReason } from '../lib/text.ts';

export function refuseUnstorableQueryText(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  // Most requests have no query string: skip them without touching the parsed query.
  if (!request.url.includes('?')) return done();
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    const nameReason = unstorableTextReason(name);
    if (nameReason) return done(invalid('parameter_unknown', `A query parameter name ${nameReason}.`));
    for (const text of Array.isArray(value) ? value : [value]) {
      const reason = typeof text === 'string' ? unstorableTextReason(text) : undefined;
      if (reason) return done(invalid('parameter_invalid', `Query parameter \`${name}\` ${reason}.`, name));
    }
  }
  done();
}
