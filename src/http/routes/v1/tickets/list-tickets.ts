import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listTickets } from '../../../../domain/tickets/tickets.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListTicketsQuery, TicketList } from '../../../schemas/tickets.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentTicket } from '../../../presenters/tickets.ts';

export const listTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tickets',
    {
      schema: {
        tags: ['tickets'],
        operationId: 'listTickets',
        summary: 'List tickets, newest first',
        description: 'Tickets, newest first and paginated; filter by `order_id`, `performance_id` or `status`.',
        querystring: ListTicketsQuery,
        response: { 200: success(TicketList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after, ...filters } = request.query;
      const page = await listTickets(request.db, tenantOf(request).organizerId, filters, {
        limit: limit ?? PAGE_LIMIT_DEFAULT,
        starting_after,
      });
      return presentList(page, presentTicket);
    },
  );
};
