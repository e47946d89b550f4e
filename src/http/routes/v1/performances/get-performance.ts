import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getPerformance } from '../../../../domain/catalog/performances.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Performance } from '../../../schemas/performances.ts';
import { presentPerformance } from '../../../presenters/performances.ts';

export const getPerformanceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id',
    {
      config: { resource: 'Performance', reads: 'replica' },
      schema: {
        tags: ['performances'],
        operationId: 'getPerformance',
        summary: 'Get a performance',
        description: 'One scheduled date of an event, with its status, capacity and sales channels.',
        params: IdParams,
        response: { 200: success(Performance), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      presentPerformance(await getPerformance(request.db, tenantOf(request).organizerId, request.params.id)),
  );
};
