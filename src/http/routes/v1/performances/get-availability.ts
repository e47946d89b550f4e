import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getPerformanceAvailability } from '../../../../domain/catalog/performances.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Availability } from '../../../schemas/performances.ts';
import { presentAvailability } from '../../../presenters/performances.ts';

export const getAvailabilityRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id/availability',
    {
      config: { resource: 'Performance', reads: 'replica' },
      schema: {
        tags: ['performances'],
        operationId: 'getPerformanceAvailability',
        summary: 'What remains to sell on a performance, overall and per ticket type (an advisory snapshot)',
        description:
          'What is left to sell: overall and per ticket type. A snapshot: POST /v1/orders takes inventory atomically and is the only authority.',
        params: IdParams,
        response: { 200: success(Availability), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      presentAvailability(
        await getPerformanceAvailability(
          request.db,
          tenantOf(request).organizerId,
          request.params.id,
          app.deps.clock.now(),
        ),
      ),
  );
};
