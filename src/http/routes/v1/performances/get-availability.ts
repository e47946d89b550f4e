import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getPerformanceAvailability } from '../../../../domain/catalog/performances.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { Availability } from '../../../schemas/performances.ts';
import { presentAvailability } from '../../../presenters/performances.ts';

export const getAvailabilityRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id/availability',
    {
      config: { resource: 'Performance' },
      schema: {
        tags: ['performances'],
        operationId: 'getPerformanceAvailability',
        summary: 'What remains to sell on a performance, overall and per ticket type (an advisory snapshot)',
        params: IdParams,
        response: { 200: Availability, ...errorResponses(401, 403, 404) },
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
