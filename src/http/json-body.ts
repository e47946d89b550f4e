/**
 * The one body parser: Fastify's own (prototype-poisoning safe), except that an empty
 * body is "no body" rather than an error, because clients often send
 * `content-type: application/json` on body-less POSTs such as check_in.
 */
import type { FastifyInstance } from 'fastify';

export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON is the only body the API takes: anything else answers 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, done);
  });
}
