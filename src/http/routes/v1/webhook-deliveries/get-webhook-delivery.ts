import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getDelivery } from '../../../../webhooks/deliveries.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { WebhookDeliveryDetail } from '../../../schemas/webhooks.ts';
import { presentDeliveryDetail } from '../../../presenters/webhooks.ts';

export const getWebhookDeliveryRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/webhook_deliveries/:id',
    {
      config: { resource: 'Webhook delivery', reads: 'replica' },
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhookDelivery',
        summary: 'A delivery with its payload and every attempt',
        description:
          'The delivery, the exact body its attempts send (`payload`), and every attempt made, oldest first, each with a bounded copy of the response: its status, six headers and the first 1,024 bytes of the body. Kept for 30 days.',
        params: IdParams,
        response: { 200: success(WebhookDeliveryDetail), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      presentDeliveryDetail(await getDelivery(request.db, tenantOf(request).organizerId, request.params.id)),
  );
};
