import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listOrders } from '../../../../domain/orders/orders.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListOrdersQuery, OrderList } from '../../../schemas/orders.ts';
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
        description:
          'Orders, newest first and paginated; filter by `status`, buyer `email` (exact, case-insensitive), `event_id` or `performance_id` (any transaction line).',
        querystring: ListOrdersQuery,
        response: { 200: success(OrderList), ...errorResponses(400, 401, 403) },
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
