import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { transfer } from '../../../../domain/tickets/tickets.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
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
        params: IdParams,
        body: TransferTicket,
        response: { 200: Ticket, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => presentTicket(await transfer(request.db, request.params.id, request.body, app.deps.clock.now())),
  );
};
