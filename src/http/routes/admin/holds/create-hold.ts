import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createHold } from '../../../../domain/catalog/holds.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { CreateHold, Hold } from '../../../schemas/holds.ts';
import { presentHold } from '../../../presenters/holds.ts';

export const createHoldRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/performances/:id/holds',
    {
      config: { resource: 'Performance' },
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateHold',
        summary:
          'Hold seats on a performance: a cart hold (expires, default 15 minutes) or a hold allocation (no expiry)',
        description:
          'A cart hold expires (15 minutes by default); a hold allocation holds until released. Both count against availability.',
        params: IdParams,
        body: CreateHold,
        response: { 201: success(Hold), ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const hold = await createHold(request.db, request.params.id, request.body, app.deps.clock.now());
      return reply.code(201).send(presentHold(hold));
    },
  );
};
