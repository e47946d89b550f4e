import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getTicket } from '../../../../domain/tickets/tickets.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Ticket } from '../../../schemas/tickets.ts';
import { presentTicket } from '../../../presenters/tickets.ts';

export const getTicketRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tickets/:id',
    {
      config: { resource: 'Ticket', scope: ['read', 'check_in'], reads: 'replica' },
      schema: {
        tags: ['tickets'],
        operationId: 'getTicket',
        summary: 'Get a ticket',
        description:
          'One issued ticket, with its holder and check-in state. A door device’s key reads only tickets of its performances.',
        params: IdParams,
        response: { 200: success(Ticket), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      return presentTicket(await getTicket(request.db, auth.organizerId, request.params.id, auth.performanceIds));
    },
  );
};
