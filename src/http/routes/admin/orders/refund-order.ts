import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { refundOrder } from '../../../../domain/orders/operations.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Refund, RefundOrder } from '../../../schemas/orders.ts';
import { presentRefund } from '../../../presenters/orders.ts';
import { bodyOptional } from '../../../json-body.ts';

export const refundOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/refund',
    {
      // The body is optional: no body means every default.
      preValidation: bodyOptional,
      config: { resource: 'Order' },
      schema: {
        tags: ['admin'],
        operationId: 'adminRefundOrder',
        summary: 'Refund tickets of an order (all purchased tickets by default)',
        description:
          'Refunds the given tickets (every purchased ticket by default) and emits `order.refunded`. Cash refunds settle at once; card refunds stay pending until the gateway outcome is recorded.',
        params: IdParams,
        body: RefundOrder,
        response: { 201: success(Refund), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const refund = await refundOrder(
        request.db,
        request.params.id,
        { ticket_ids: body.ticket_ids, mode: body.mode ?? 'cash' },
        app.deps.clock.now(),
      );
      return reply.code(201).send(presentRefund(refund));
    },
  );
};
