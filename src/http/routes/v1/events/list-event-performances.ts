import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listPerformances } from '../../../../domain/catalog/performances.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListPerformancesQuery, PerformanceList } from '../../../schemas/performances.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentPerformance } from '../../../presenters/performances.ts';

export const listEventPerformancesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:id/performances',
    {
      config: { resource: 'Event', reads: 'replica' },
      schema: {
        tags: ['performances'],
        operationId: 'listEventPerformances',
        summary: "List an event's performances, soonest first",
        description:
          'The event’s schedule, soonest first, paginated. An unknown or another organizer’s event answers 404, never an empty list.',
        params: IdParams,
        querystring: ListPerformancesQuery,
        response: { 200: success(PerformanceList), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await listPerformances(request.db, tenantOf(request).organizerId, request.params.id, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentPerformance);
    },
  );
};
