import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { removeEndpoint } from '../../../../webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { DeletedWebhookEndpoint } from '../../../schemas/webhooks.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';

export const deleteWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/webhook_endpoints/:id',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint and its delivery log',
        description: 'Deletes the endpoint for good, its delivery log with it. Deliveries in flight are not sent.',
        params: IdParams,
        response: {
          200: success(DeletedWebhookEndpoint, 'The endpoint was deleted'),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const removed = await removeEndpoint(request.db, tenantOf(request).organizerId, request.params.id);
      return { id: removed.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );
};
