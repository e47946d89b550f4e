import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getOrder } from '../../../../domain/orders/orders.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { GetOrderQuery, OrderDetail } from '../../../schemas/orders.ts';
import { presentOrderDetail } from '../../../presenters/orders.ts';

export const getOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders/:id',
    {
      config: { resource: 'Order', reads: 'replica' },
      schema: {
        tags: ['orders'],
        operationId: 'getOrder',
        summary: 'Get an order with its transactions and registration answers',
        description:
          'The order with its transactions and registration answers. `expand[]=items` embeds each transaction’s tickets.',
        params: IdParams,
        querystring: GetOrderQuery,
        response: { 200: success(OrderDetail), ...errorResponses(400, 401, 403, 404) },
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
