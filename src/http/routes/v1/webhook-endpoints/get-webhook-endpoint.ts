import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getEndpoint } from '../../../../webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { WebhookEndpoint } from '../../../schemas/webhooks.ts';
import { presentEndpoint } from '../../../presenters/webhooks.ts';

export const getWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/webhook_endpoints/:id',
    {
      config: { resource: 'Webhook endpoint', reads: 'replica' },
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        description: 'The endpoint with its subscription, status and an abbreviated secret.',
        params: IdParams,
        response: { 200: success(WebhookEndpoint), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => presentEndpoint(await getEndpoint(request.db, tenantOf(request).organizerId, request.params.id)),
  );
};
