import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkIn } from '../../../../domain/tickets/tickets.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { Ticket } from '../../../schemas/tickets.ts';
import { presentTicket } from '../../../presenters/tickets.ts';

export const checkInTicketRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tickets/:id/check_in',
    {
      config: { resource: 'Ticket' },
      schema: {
        tags: ['tickets'],
        operationId: 'checkInTicket',
        summary: 'Admit a ticket at the door',
        description:
          'Admits the current holder once. 409 when already checked in (`Ticket is already checked in.`), the order is unpaid, or the ticket is refunded or cancelled.',
        params: IdParams,
        response: { 200: Ticket, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) =>
      presentTicket(
        await checkIn(request.db, tenantOf(request).organizerId, { id: request.params.id }, app.deps.clock.now()),
      ),
  );
};
