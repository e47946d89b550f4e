import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listOrders } from '../../../../domain/orders/orders.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, ListOf, PAGE_LIMIT_DEFAULT } from '../../../schemas/common.ts';
import { ListOrdersQuery, Order } from '../../../schemas/orders.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentOrder } from '../../../presenters/orders.ts';

export const listOrdersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders',
    {
      schema: {
        tags: ['orders'],
        operationId: 'listOrders',
        summary: 'List orders, newest first',
        querystring: ListOrdersQuery,
        response: { 200: ListOf(Order), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { limit, starting_after, ...filters } = request.query;
      const page = await listOrders(request.db, tenantOf(request).organizerId, filters, {
        limit: limit ?? PAGE_LIMIT_DEFAULT,
        starting_after,
      });
      return presentList(page, presentOrder);
    },
  );
};
