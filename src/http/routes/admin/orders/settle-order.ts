import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { settleOrder } from '../../../../domain/orders/operations.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { OrderDetail, SettleOrder } from '../../../schemas/orders.ts';
import { presentOrderDetail } from '../../../presenters/orders.ts';
import { bodyOptional } from '../../../json-body.ts';

export const settleOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/settle',
    {
      // The body is optional: no body means every default.
      preValidation: bodyOptional,
      config: { resource: 'Order' },
      schema: {
        tags: ['admin'],
        operationId: 'adminSettleOrder',
        summary: 'Settle an unpaid (pay-later) order',
        description: 'Records the payment of a pay-later order: it becomes placed and emits `order.paid`.',
        params: IdParams,
        body: SettleOrder,
        response: { 200: success(OrderDetail), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentOrderDetail(
        await settleOrder(request.db, request.params.id, request.body?.tender ?? 'cash', app.deps.clock.now()),
      ),
  );
};
