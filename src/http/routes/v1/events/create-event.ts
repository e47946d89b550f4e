import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createEvent } from '../../../../domain/catalog/create-event.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses } from '../../../schemas/common.ts';
import { CreateEvent, EventDetail } from '../../../schemas/events.ts';
import { presentEventDetail } from '../../../presenters/events.ts';

export const createEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events',
    {
      schema: {
        tags: ['events'],
        operationId: 'createEvent',
        summary:
          'Create an event with its venue, category, performances and ticket types (priced on every performance)',
        body: CreateEvent,
        response: { 201: EventDetail, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const event = await createEvent(request.db, tenant, request.body, app.deps.clock.now());
      return reply.code(201).send(presentEventDetail(event));
    },
  );
};
