import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getEventDetail } from '../../../../domain/catalog/events.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { EventDetail } from '../../../schemas/events.ts';

export const getEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/events/:id', {
    config: { resource: 'Event' },
    schema: {
      tags: ['events'], operationId: 'getEvent', summary: 'Get an event with its ticket types and per-performance prices',
      params: IdParams,
      response: { 200: EventDetail, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getEventDetail(request.db, tenantOf(request).organizerId, request.params.id));
};
