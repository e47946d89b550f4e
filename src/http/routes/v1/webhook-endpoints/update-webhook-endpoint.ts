import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { updateEndpointSettings } from '../../../../domain/webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { UpdateWebhookEndpoint, WebhookEndpoint } from '../../../schemas/webhooks.ts';
import { vetBodyUrl, vettedUrlOf } from './vet-url.ts';
import { presentEndpoint } from '../../../presenters/webhooks.ts';

export const updateWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/webhook_endpoints/:id',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['webhooks'],
        operationId: 'updateWebhookEndpoint',
        summary: 'Update url (re-vetted), description, event_types or status (enabled/disabled)',
        params: IdParams,
        body: UpdateWebhookEndpoint,
        response: { 200: WebhookEndpoint, ...errorResponses(400, 401, 403, 404) },
      },
      // DNS before any transaction opens (see vet-url.ts).
      preHandler: vetBodyUrl,
    },
    async (request) => {
      const row = await updateEndpointSettings(
        request.db,
        tenantOf(request).organizerId,
        request.params.id,
        request.body,
        vettedUrlOf(request),
        app.deps.clock.now(),
      );
      return presentEndpoint(row);
    },
  );
};
