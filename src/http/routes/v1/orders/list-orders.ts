import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listOrders } from '../../../../domain/orders/orders.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListOrdersQuery, OrderList } from '../../../schemas/orders.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentOrder } from '../../../presenters/orders.ts';
import { listView } from '../../../list-view.ts';

export const listOrdersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders',
    {
      config: { reads: 'replica' },
      schema: {
        tags: ['orders'],
        operationId: 'listOrders',
        summary: 'List orders, newest first, or poll them for changes',
        description:
          'Orders, newest first and paginated; filter by `status`, buyer `email` (exact, case-insensitive), `event_id` or `performance_id` (any transaction line), and by time: `created_gte`, `created_lt`, `updated_gte`, `updated_lt`. To poll for changes, list with `order=updated_asc`, passing back the last item’s `updated_at` as `updated_gte` and its `id` as `starting_after`: no change is ever skipped (docs/sync.md).',
        querystring: ListOrdersQuery,
        response: { 200: success(OrderList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after, status, email, event_id, performance_id, ...view } = request.query;
      const page = await listOrders(
        request.db,
        tenantOf(request).organizerId,
        { status, email, event_id, performance_id },
        { limit: limit ?? PAGE_LIMIT_DEFAULT, starting_after },
        listView(view, app.deps.clock.now()),
      );
      return presentList(page, presentOrder);
    },
  );
};
