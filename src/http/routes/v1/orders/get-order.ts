import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getOrder } from '../../../../domain/orders/orders.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { GetOrderQuery, OrderDetail } from '../../../schemas/orders.ts';
import { presentOrderDetail } from '../../../presenters/orders.ts';

export const getOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders/:id',
    {
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'getOrder',
        summary: 'Get an order with its transactions and registration answers',
        params: IdParams,
        querystring: GetOrderQuery,
        response: { 200: OrderDetail, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const items = request.query['expand[]']?.includes('items') ?? false;
      return presentOrderDetail(
        await getOrder(request.db, tenantOf(request).organizerId, request.params.id, { items }),
      );
    },
  );
};
