import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listTickets } from '../../../../domain/tickets/tickets.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListTicketsQuery, TicketList } from '../../../schemas/tickets.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentTicket } from '../../../presenters/tickets.ts';
import { listView } from '../../../list-view.ts';

export const listTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tickets',
    {
      config: { scope: ['read', 'check_in'], reads: 'replica' },
      schema: {
        tags: ['tickets'],
        operationId: 'listTickets',
        summary: 'List tickets, newest first, or poll them for changes',
        description:
          'Tickets, newest first and paginated; filter by `order_id`, `performance_id` or `status`, by `serial_no` (exact: what the QR code of an e-ticket encodes, so a door scanner finds the ticket it read; another organizer’s serial finds nothing) or `ticket_no` (exact, as printed on the e-ticket), and by time: `created_gte`, `created_lt`, `updated_gte`, `updated_lt`. To poll for changes, list with `order=updated_asc`, passing back the last item’s `updated_at` as `updated_gte` and its `id` as `starting_after`: no change is ever skipped (docs/sync.md). A door device’s key lists only its performances’ tickets.',
        querystring: ListTicketsQuery,
        response: { 200: success(TicketList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after, order_id, performance_id, status, serial_no, ticket_no, ...view } = request.query;
      const auth = tenantOf(request);
      const page = await listTickets(
        request.db,
        auth.organizerId,
        { order_id, performance_id, status, serial_no, ticket_no },
        { limit: limit ?? PAGE_LIMIT_DEFAULT, starting_after },
        listView(view, app.deps.clock.now()),
        auth.performanceIds,
      );
      return presentList(page, presentTicket);
    },
  );
};
