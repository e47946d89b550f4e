import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { updateEndpointSettings } from '../../../../webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, ref, success } from '../../../schemas/common.ts';
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
        description:
          'A partial update. A new `url` is vetted as at create; `status` takes `enabled` or `disabled` (re-enabling an auto-disabled endpoint included).',
        params: IdParams,
        body: ref(UpdateWebhookEndpoint),
        response: { 200: success(WebhookEndpoint), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
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
