import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkIn } from '../../../../domain/tickets/tickets.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { ScanBody, Ticket } from '../../../schemas/tickets.ts';
import { presentTicket } from '../../../presenters/tickets.ts';

export const scanTicketRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/scan',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminScanTicket',
        summary: 'Gate scanner: admit the ticket whose serial_no is `code`',
        description:
          'What the door scanner calls with the code it read: admits the ticket once, with the same guards as check-in through the API.',
        body: ScanBody,
        response: { 200: success(Ticket), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentTicket(
        await checkIn(request.db, request.body.organizer_id, { serialNo: request.body.code }, app.deps.clock.now()),
      ),
  );
};
