import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createEndpoint, presentEndpointWithSecret } from '../../../../domain/webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses } from '../../../schemas/common.ts';
import { CreateWebhookEndpoint, WebhookEndpointWithSecret } from '../../../schemas/webhooks.ts';

export const createWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/webhook_endpoints', {
    schema: {
      tags: ['webhooks'], operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint; the response carries the raw signing secret, once',
      body: CreateWebhookEndpoint,
      response: { 201: WebhookEndpointWithSecret, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { config, webhookResolver, clock } = app.deps;
    const created = await createEndpoint(request.db, tenantOf(request).organizerId, request.body,
      { allowLoopback: config.webhookAllowLoopback, resolver: webhookResolver }, clock.now());
    return reply.code(201).send(presentEndpointWithSecret(created));
  });
};
