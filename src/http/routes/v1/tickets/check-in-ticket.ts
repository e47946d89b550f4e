import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkIn } from '../../../../domain/tickets/tickets.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Ticket } from '../../../schemas/tickets.ts';
import { presentTicket } from '../../../presenters/tickets.ts';

export const checkInTicketRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tickets/:id/check_in',
    {
      config: { resource: 'Ticket', scope: ['write', 'check_in'] },
      schema: {
        tags: ['tickets'],
        operationId: 'checkInTicket',
        summary: 'Admit a ticket at the door',
        description:
          'Admits the ticket’s current holder once, with the same atomic guards as the gate scanner. A door device’s key (`check_in` scope) admits only tickets of its performances; another performance’s ticket is not found. 409 when it cannot be admitted: already checked in, the order unpaid, the ticket refunded or cancelled, or a concurrent transfer (retry). A fresh admit emits `ticket.checked_in` exactly once.',
        params: IdParams,
        response: {
          200: success(Ticket, 'The ticket, checked in'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const by = { deviceId: auth.deviceId, reach: auth.performanceIds };
      return presentTicket(
        await checkIn(request.db, auth.organizerId, { id: request.params.id }, app.deps.clock.now(), by),
      );
    },
  );
};
