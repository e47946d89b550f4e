import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forgetEventDetail, updateEvent } from '../../../../domain/catalog/events.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { EventDetail, UpdateEvent } from '../../../schemas/events.ts';

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
      // Drop the cached GET detail once the change has committed: route hooks run after the
      // scope's, i.e. after the idempotency layer's onSend commits its request transaction
      // (without Idempotency-Key the domain call committed before the handler returned).
      onSend: async (request, _reply, payload) => {
        forgetEventDetail(app.deps.caches.eventDetails, request.params.id);
        return payload;
      },
    },
    async (request) =>
      updateEvent(request.db, tenantOf(request).organizerId, request.params.id, request.body, app.deps.clock.now()),
  );
};
