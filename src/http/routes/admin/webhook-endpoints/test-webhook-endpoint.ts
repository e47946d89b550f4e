import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendTestPing } from '../../../../webhooks/deliveries.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { WebhookDelivery } from '../../../schemas/webhooks.ts';
import { presentDelivery } from '../../../presenters/webhooks.ts';

export const testWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook_endpoints/:id/test',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['admin'],
        operationId: 'adminTestWebhookEndpoint',
        summary: 'Queue a test.ping to this endpoint, even when it is disabled; returns the delivery',
        description: 'Queues a `test.ping` to this endpoint, even when it is disabled, and returns its delivery.',
        params: IdParams,
        response: { 201: success(WebhookDelivery), ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const row = await sendTestPing(request.db, request.params.id, app.deps.clock.now());
      return reply.code(201).send(presentDelivery(row));
    },
  );
};
