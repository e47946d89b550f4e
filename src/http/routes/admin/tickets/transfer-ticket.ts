import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { transfer } from '../../../../domain/tickets/tickets.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Ticket, TransferTicket } from '../../../schemas/tickets.ts';
import { presentTicket } from '../../../presenters/tickets.ts';

export const transferTicketRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tickets/:id/transfer',
    {
      config: { resource: 'Ticket' },
      schema: {
        tags: ['admin'],
        operationId: 'adminTransferTicket',
        summary: 'Give a purchased ticket a new holder',
        description: 'The ticket keeps its serial number; the new holder is the one admitted at the door.',
        params: IdParams,
        body: TransferTicket,
        response: { 200: success(Ticket), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => presentTicket(await transfer(request.db, request.params.id, request.body, app.deps.clock.now())),
  );
};
