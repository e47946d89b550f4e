import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listDoorTickets } from '../../../../domain/check-ins/door-tickets.ts';
import { tenantOf } from '../../../context.ts';
import { DOOR_TICKETS_LIMIT_MAX, DoorTicketList, ListDoorTicketsQuery } from '../../../schemas/check-ins.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentDoorTicket } from '../../../presenters/check-ins.ts';

export const listDoorTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/door_tickets',
    {
      config: { scope: ['read', 'check_in'] },
      schema: {
        tags: ['tickets'],
        operationId: 'listDoorTickets',
        summary: 'The door’s local copy of the tickets, in the sync order',
        description: `Tickets as a door keeps them to decide offline (status, whether the order is paid or cancelled, the check-in), ordered by (\`updated_at\`, \`id\`) ascending, up to ${DOOR_TICKETS_LIMIT_MAX} a page. Poll with the last item’s \`updated_at\` as \`updated_gte\` and its \`id\` as \`starting_after\`: no change is ever skipped (docs/sync.md). A door device’s key lists its performances’ tickets only (docs/check-ins.md).`,
        querystring: ListDoorTicketsQuery,
        response: { 200: success(DoorTicketList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after, updated_gte, performance_id } = request.query;
      const page = await listDoorTickets(
        request.db,
        tenantOf(request),
        { performance_id, updated_gte: updated_gte === undefined ? undefined : new Date(updated_gte) },
        { limit: limit ?? DOOR_TICKETS_LIMIT_MAX, starting_after },
        app.deps.clock.now(),
      );
      return presentList(page, presentDoorTicket);
    },
  );
};
