import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listEndpointDeliveries } from '../../../../webhooks/deliveries.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { WebhookDeliveryList, WebhookDeliveryListQuery } from '../../../schemas/webhooks.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentDelivery } from '../../../presenters/webhooks.ts';

export const listWebhookDeliveriesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/webhook_endpoints/:id/deliveries',
    {
      config: { resource: 'Webhook endpoint', reads: 'replica' },
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: "The endpoint's delivery log, newest first",
        description:
          'Every delivery to this endpoint, newest first and paginated, with the outcome of its latest attempt. Delivery logs are kept for 30 days. Filter by `status` (repeat the parameter for several: `status=failed&status=exhausted`) and by creation time (`created_gte`, `created_lt`); filters combine with the cursor. Each delivery’s payload and attempts: GET /v1/webhook_deliveries/{id}.',
        params: IdParams,
        querystring: WebhookDeliveryListQuery,
        response: { 200: success(WebhookDeliveryList), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, starting_after, status, created_gte, created_lt } = request.query;
      const filters = {
        status,
        createdGte: created_gte === undefined ? undefined : new Date(created_gte),
        createdLt: created_lt === undefined ? undefined : new Date(created_lt),
      };
      const page = await listEndpointDeliveries(request.db, tenantOf(request).organizerId, request.params.id, filters, {
        limit: limit ?? PAGE_LIMIT_DEFAULT,
        starting_after,
      });
      return presentList(page, presentDelivery);
    },
  );
};
