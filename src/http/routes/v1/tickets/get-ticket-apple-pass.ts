import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ticketApplePass } from '../../../../domain/tickets/ticket-apple-pass.ts';
import { tenantOf } from '../../../context.ts';
import { ApplePass } from '../../../schemas/apple-pass.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';

export const getTicketApplePassRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tickets/:id/pass.pkpass',
    {
      config: { resource: 'Ticket' },
      schema: {
        tags: ['tickets'],
        operationId: 'getTicketApplePass',
        summary: 'Download a ticket’s Apple Wallet pass',
        description:
          'The .pkpass the buyer receives with the e-tickets, signed with the organizer’s pass certificate: an event ' +
          'ticket with the event, the start in the event’s time zone, venue, ticket type, holder and ticket number, ' +
          'the serial as a QR barcode, and the start as relevant date, in the event’s language (docs/tickets.md, ' +
          '"Apple Wallet"). An unknown or another organizer’s ticket answers 404; an organizer without Apple Wallet ' +
          'settings, or a ticket no longer valid (cancelled or refunded), 409 `invalid_state`.',
        params: IdParams,
        response: { 200: ApplePass, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { ticketNo, pkpass } = await ticketApplePass(
        request.db,
        tenantOf(request).organizerId,
        request.params.id,
        app.deps.config.walletSecretsKey,
      );
      return (
        reply
          .header('content-type', 'application/vnd.apple.pkpass')
          .header('content-disposition', `attachment; filename="ticket-${ticketNo}.pkpass"`)
          // Personal data (names, the code that opens the door): no shared or private cache keeps a copy.
          .header('cache-control', 'no-store')
          .send(pkpass)
      );
    },
  );
};
