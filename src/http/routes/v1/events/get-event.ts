import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { getEventDetail } from '../../../../domain/catalog/events.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { EventDetail } from '../../../schemas/events.ts';
import { presentEventDetail } from '../../../presenters/events.ts';
import { EVENT_DETAIL_CONTENT_TYPE } from '../../../event-detail-cache.ts';

/**
 * Bytes with a content type skip the serializer and go out as they are. A Buffer rather
 * than the string: its length is known and the socket writes it without re-encoding
 * 9 KB of UTF-8 on every request.
 */
function sendSerialized(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type(EVENT_DETAIL_CONTENT_TYPE).send(body);
}

export const getEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:id',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'getEvent',
        summary: 'Get an event with its ticket types and per-performance prices',
        description:
          'The event detail: translations, ticket types and each type’s price at every performance. Answers are cached for up to one second; any change through the API shows at once.',
        params: IdParams,
        response: { 200: success(EventDetail), ...errorResponses(400, 401, 403, 404) },
      },
    },
    (request, reply) => {
      // The serialized body is cached per event for 1 s (docs/catalog.md): a hit is sent as
      // the very bytes the route's serializer produced, so cached and fresh bodies are equal.
      // Concurrent misses of one organizer's event share one load (src/lib/ttl-cache.ts).
      const { organizerId } = tenantOf(request);
      const { id } = request.params;
      const loadDetail = async () => {
        const detail = presentEventDetail(await getEventDetail(request.db, organizerId, id));
        // The route's own serializer for a 200 application/json, so the bytes equal an uncached answer.
        return {
          organizerId,
          body: Buffer.from(reply.serializeInput(detail, '200', 'application/json') as string, 'utf8'),
        };
      };
      // Another organizer's event may be cached: this organizer's own load answers its 404.
      const answer = async (entry: { organizerId: string; body: Buffer } | undefined) =>
        sendSerialized(reply, entry?.organizerId === organizerId ? entry.body : (await loadDetail()).body);
      const cached = app.deps.caches.eventDetails.load(id, loadDetail, `${organizerId}:${id}`);
      if (cached instanceof Promise) return cached.then(answer);
      // A hit is answered at once: a handler that returns nothing after sending costs no
      // promise and no microtask turns (an async one resolves through the reply's then).
      if (cached?.organizerId === organizerId) {
        sendSerialized(reply, cached.body);
        return undefined;
      }
      return answer(cached);
    },
  );
};
