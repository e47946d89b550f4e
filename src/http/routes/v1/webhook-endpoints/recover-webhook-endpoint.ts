import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recoverEndpoint } from '../../../../webhooks/deliveries.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, ref, success } from '../../../schemas/common.ts';
import { RecoverWebhookEndpoint, WebhookRecovery } from '../../../schemas/webhooks.ts';
import { presentRecovery } from '../../../presenters/webhooks.ts';

export const recoverWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook_endpoints/:id/recover',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['webhooks'],
        operationId: 'recoverWebhookEndpoint',
        summary: 'Send again every failed or exhausted delivery since a time',
        description:
          'Redelivers (as POST /v1/webhook_deliveries/{id}/redeliver does: a new delivery, attempt 0, same `webhook-id`) the latest delivery of every event that failed or was exhausted on this endpoint since `since`, oldest first, at most 1,000 a call (`has_more` says when more remain). An event already delivered since, or with a delivery already pending, is not sent again, so calling twice queues nothing twice. Deliveries to a disabled endpoint wait until it is enabled.',
        params: IdParams,
        body: ref(RecoverWebhookEndpoint),
        response: {
          200: success(WebhookRecovery, 'How many deliveries were queued again, and how many were already pending'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    async (request) => {
      const since = new Date(request.body.since);
      const result = await recoverEndpoint(
        request.db,
        tenantOf(request).organizerId,
        request.params.id,
        since,
        app.deps.clock.now(),
      );
      return presentRecovery(request.params.id, since, result);
    },
  );
};
