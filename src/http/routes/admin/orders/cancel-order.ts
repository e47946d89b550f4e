import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cancelOrder } from '../../../../domain/orders/operations.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { OrderDetail } from '../../../schemas/orders.ts';
import { presentOrderDetail } from '../../../presenters/orders.ts';

export const cancelOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/cancel',
    {
      config: { resource: 'Order' },
      schema: {
        tags: ['admin'],
        operationId: 'adminCancelOrder',
        summary: 'Cancel an order: its purchased tickets are cancelled and their seats return',
        description: 'Cancels the order and its purchased tickets; their seats return to sale.',
        params: IdParams,
        response: { 200: success(OrderDetail), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => presentOrderDetail(await cancelOrder(request.db, request.params.id, app.deps.clock.now())),
  );
};
