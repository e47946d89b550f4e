import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listEndpoints } from '../../../../webhooks/endpoints.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { WebhookEndpointList, WebhookListQuery } from '../../../schemas/webhooks.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentEndpoint } from '../../../presenters/webhooks.ts';

export const listWebhookEndpointsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/webhook_endpoints',
    {
      config: { reads: 'replica' },
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints, newest first',
        description: 'The organizer’s webhook endpoints, newest first and paginated.',
        querystring: WebhookListQuery,
        response: { 200: success(WebhookEndpointList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listEndpoints(request.db, tenantOf(request).organizerId, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentEndpoint);
    },
  );
};
