import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createEndpoint } from '../../../../webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, ref, success } from '../../../schemas/common.ts';
import { CreateWebhookEndpoint, WebhookEndpointWithSecret } from '../../../schemas/webhooks.ts';
import { vetBodyUrl, vettedUrlOf } from './vet-url.ts';
import { presentEndpointWithSecret } from '../../../presenters/webhooks.ts';

export const createWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint; the response carries the raw signing secret, once',
        description:
          'The URL must be HTTPS without credentials, and every address its host resolves to must be public (checked again at every send). The 201 is the only response that carries the raw signing secret.',
        body: ref(CreateWebhookEndpoint),
        response: {
          201: success(
            WebhookEndpointWithSecret,
            'The endpoint, with its signing secret (shown only in this response)',
          ),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      },
      // DNS before any transaction opens (see vet-url.ts).
      preHandler: vetBodyUrl,
    },
    async (request, reply) => {
      const created = await createEndpoint(
        request.db,
        tenantOf(request).organizerId,
        request.body,
        vettedUrlOf(request),
        { maxEndpoints: app.deps.config.webhookMaxEndpointsPerOrganizer },
        app.deps.clock.now(),
      );
      return reply.code(201).send(presentEndpointWithSecret(created));
    },
  );
};
