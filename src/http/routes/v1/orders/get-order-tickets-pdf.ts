import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { orderTicketsPdf } from '../../../../domain/orders/order-tickets-pdf.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { TicketsPdf } from '../../../schemas/tickets-pdf.ts';

export const getOrderTicketsPdfRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders/:id/tickets.pdf',
    {
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'getOrderTicketsPdf',
        summary: 'Download an order’s tickets as a PDF',
        description:
          'The PDF the buyer receives with the e-tickets: one page per ticket still valid (purchased or checked in) ' +
          'with the event title, the performance’s date and time in the event’s time zone (named), the venue, ticket ' +
          'type, price, holder, ticket number, order number, the organizer, and the ticket’s serial as a QR code ' +
          '(over 45 mm, for the door’s scanner) with the serial printed under it. In the event’s language, else the ' +
          'organizer’s default language, else English; A4 or Letter per the organizer’s `ticket_paper_size` ' +
          '(docs/tickets.md, "PDF tickets"). An unknown or another organizer’s order answers 404; an order with no ' +
          'valid ticket left (all cancelled or refunded) 409 `invalid_state`.',
        params: IdParams,
        response: { 200: TicketsPdf, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { orderNo, pdf } = await orderTicketsPdf(request.db, tenantOf(request).organizerId, request.params.id);
      return (
        reply
          .header('content-type', 'application/pdf')
          .header('content-disposition', `attachment; filename="tickets-${orderNo}.pdf"`)
          // Personal data (names, the codes that open the door): no shared or private cache keeps a copy.
          .header('cache-control', 'no-store')
          .send(pdf)
      );
    },
  );
};
