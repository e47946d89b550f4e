import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { publishEvent } from '../../../../domain/catalog/change-event.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { EventDetail } from '../../../schemas/events.ts';
import { presentEventDetail } from '../../../presenters/events.ts';

export const publishEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/publish',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['admin'],
        operationId: 'adminPublishEvent',
        summary: 'Publish a draft event: its performances go live, one event.published each',
        description:
          'Each draft performance goes live and emits one `event.published`. An event already published answers 409.',
        params: IdParams,
        response: { 200: success(EventDetail), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => presentEventDetail(await publishEvent(request.db, request.params.id, app.deps.clock.now())),
  );
};
