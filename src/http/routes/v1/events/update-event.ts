import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { updateEvent } from '../../../../domain/catalog/change-event.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { EventDetail, UpdateEvent } from '../../../schemas/events.ts';
import { presentEventDetail } from '../../../presenters/events.ts';

export const updateEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/events/:id',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'updateEvent',
        summary: 'Update an event: title, description, contact_email, is_archived (absent fields untouched)',
        params: IdParams,
        body: UpdateEvent,
        response: { 200: EventDetail, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      presentEventDetail(
        await updateEvent(
          request.db,
          tenantOf(request).organizerId,
          request.params.id,
          request.body,
          app.deps.clock.now(),
        ),
      ),
  );
};
