import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rotateEndpointSecret } from '../../../../webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { WebhookEndpointWithSecret } from '../../../schemas/webhooks.ts';
import { presentEndpointWithSecret } from '../../../presenters/webhooks.ts';

export const rotateWebhookEndpointSecretRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook_endpoints/:id/rotate_secret',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['webhooks'],
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Replace the signing secret; the old one stops verifying at once',
        description:
          'Generates a new signing secret. Every delivery sent after this call is signed with the new secret; the old one stops verifying at once.',
        params: IdParams,
        response: {
          200: success(
            WebhookEndpointWithSecret,
            'The endpoint, with its new signing secret (shown only in this response)',
          ),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    async (request) =>
      presentEndpointWithSecret(
        await rotateEndpointSecret(request.db, tenantOf(request).organizerId, request.params.id, app.deps.clock.now()),
      ),
  );
};
