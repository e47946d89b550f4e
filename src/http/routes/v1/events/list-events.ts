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
      config: { reads: 'replica' },
      schema: {
        tags: ['events'],
        operationId: 'listEvents',
        summary: 'List the whole catalog (drafts, past and archived included), newest first',
        description:
          'The organizer’s whole catalog, newest first and paginated: drafts, past and archived events included. ' +
          '`status` and `title` narrow it to drafts or published events, or to titles containing a text (docs/catalog.md).',
        querystring: ListEventsQuery,
        response: { 200: success(EventList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after: startingAfter, status, title } = request.query;
      const page = await listEvents(
        request.db,
        tenantOf(request).organizerId,
        { limit: limit ?? PAGE_LIMIT_DEFAULT, starting_after: startingAfter },
        { status, title },
      );
      return presentList(page, presentEvent);
    },
  );
};
