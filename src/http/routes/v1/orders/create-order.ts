import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createOrder } from '../../../../domain/orders/create-order.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, ref, success } from '../../../schemas/common.ts';
import { CreateOrder, OrderDetail } from '../../../schemas/orders.ts';
import { presentOrderDetail } from '../../../presenters/orders.ts';

export const createOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders',
    {
      schema: {
        tags: ['orders'],
        operationId: 'createOrder',
        summary: 'Record a box-office sale',
        description:
          'A one-shot box-office sale. Availability is rechecked and taken atomically: asking for more than remains answers 400 naming the ticket type and what is left. `cash` is paid in full, `pay_later` leaves the order unpaid, `free` needs a zero total. Registration answers are validated against the event’s questions. Emits `order.created`, then mails the receipt and the e-tickets (which emits `ticket.issued`). A 409 is an idempotency conflict only.',
        body: ref(CreateOrder),
        response: {
          201: success(OrderDetail, 'The order, with its tickets and registration answers'),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const sale = await createOrder(request.db, tenantOf(request).organizerId, request.body, app.deps.clock.now());
      return reply.code(201).send(presentOrderDetail(sale));
    },
  );
};
