import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { releaseHold } from '../../../../domain/catalog/holds.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Hold } from '../../../schemas/holds.ts';
import { presentHold } from '../../../presenters/holds.ts';

export const releaseHoldRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/holds/:id',
    {
      config: { resource: 'Hold' },
      schema: {
        tags: ['admin'],
        operationId: 'adminReleaseHold',
        summary: 'Release a hold (idempotent: a released hold answers 200 with its first released_at)',
        description: 'Returns the held seats. Releasing a released hold answers 200 with its first `released_at`.',
        params: IdParams,
        response: { 200: success(Hold), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => presentHold(await releaseHold(request.db, request.params.id, app.deps.clock.now())),
  );
};
