import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listEvents } from '../../../../domain/catalog/events.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { EventList, ListEventsQuery } from '../../../schemas/events.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentEvent } from '../../../presenters/events.ts';

export const listEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        operationId: 'listEvents',
        summary: 'List the whole catalog (drafts, past and archived included), newest first',
        description:
          'The organizer’s whole catalog, newest first and paginated: drafts, past and archived events included.',
        querystring: ListEventsQuery,
        response: { 200: success(EventList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listEvents(request.db, tenantOf(request).organizerId, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentEvent);
    },
  );
};
