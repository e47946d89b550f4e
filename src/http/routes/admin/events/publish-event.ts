import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forgetEventDetail, publishEvent } from '../../../../domain/catalog/events.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { EventDetail } from '../../../schemas/events.ts';

export const publishEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/publish',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['admin'],
        operationId: 'adminPublishEvent',
        summary: 'Publish a draft event: its performances go live, one event.published each',
        params: IdParams,
        response: { 200: EventDetail, ...errorResponses(401, 404, 409) },
      },
    },
    async (request) => {
      const detail = await publishEvent(request.db, request.params.id, app.deps.clock.now());
      // Committed (admin requests run on the shared handle): drop the cached GET detail.
      forgetEventDetail(app.deps.caches.eventDetails, request.params.id);
      return detail;
    },
  );
};
