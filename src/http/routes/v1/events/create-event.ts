import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createEvent } from '../../../../domain/catalog/create-event.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, ref, success } from '../../../schemas/common.ts';
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
        description:
          'Creates the venue (found by id or name, else created), the event, its performances and its ticket types in one transaction; each ticket type is priced on every performance. A duplicate title answers 409. With `publish` true (the default) every performance goes live and emits `event.published`; false creates a draft. The 201 equals what GET /v1/events/{id} answers next.',
        body: ref(CreateEvent),
        response: {
          201: success(EventDetail, 'The event, with its ticket types and prices'),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const event = await createEvent(request.db, tenant, request.body, app.deps.clock.now());
      return reply.code(201).send(presentEventDetail(event));
    },
  );
};
