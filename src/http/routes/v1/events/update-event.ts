import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { updateEvent } from '../../../../domain/catalog/change-event.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, ref, success } from '../../../schemas/common.ts';
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
        description:
          'A partial update: absent fields are untouched, null clears a nullable field, and at least one field is required. `description` updates the default-locale translation. Emits `event.updated`.',
        params: IdParams,
        body: ref(UpdateEvent),
        response: { 200: success(EventDetail), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
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
