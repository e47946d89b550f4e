import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { removeEndpoint } from '../../../../domain/webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { DeletedSchema, errorResponses, IdParams } from '../../../schemas/common.ts';

export const deleteWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/webhook_endpoints/:id',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint and its delivery log',
        params: IdParams,
        response: { 200: DeletedSchema('webhook_endpoint'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const removed = await removeEndpoint(request.db, tenantOf(request).organizerId, request.params.id);
      return { id: removed.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );
};
