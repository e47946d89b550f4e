import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { redeliver } from '../../../../webhooks/deliveries.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { WebhookDelivery } from '../../../schemas/webhooks.ts';
import { presentDelivery } from '../../../presenters/webhooks.ts';

export const redeliverWebhookDeliveryRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook_deliveries/:id/redeliver',
    {
      config: { resource: 'Webhook delivery' },
      schema: {
        tags: ['webhooks'],
        operationId: 'redeliverWebhookDelivery',
        summary: "Send the delivery's event again as a new delivery (attempt 0, fresh retry budget, same webhook-id)",
        description:
          'Appends a new delivery of the same event to the same endpoint: attempt 0 and a fresh retry budget, under the same `webhook-id` so consumers deduplicate it.',
        params: IdParams,
        response: {
          201: success(WebhookDelivery, 'The new delivery of the same event, sent as soon as a worker takes it'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const row = await redeliver(request.db, tenantOf(request).organizerId, request.params.id, app.deps.clock.now());
      return reply.code(201).send(presentDelivery(row));
    },
  );
};
