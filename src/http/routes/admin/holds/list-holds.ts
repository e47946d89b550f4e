import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listHolds } from '../../../../domain/catalog/holds.ts';
import { errorResponses, IdParams, ListOf, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListHoldsQuery } from '../../../schemas/box-office.ts';
import { Hold } from '../../../schemas/holds.ts';
import { presentHold } from '../../../presenters/holds.ts';
import { presentList } from '../../../presenters/list.ts';

export const listHoldsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id/holds',
    {
      config: { resource: 'Performance' },
      schema: {
        tags: ['admin'],
        operationId: 'adminListHolds',
        summary: 'The holds of a performance, newest first',
        description:
          'By default the holds that still hold seats (not released, and a cart hold not past `expires_at`); with `include_released=true` every hold.',
        params: IdParams,
        querystring: ListHoldsQuery,
        response: { 200: success(ListOf(Hold)), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const page = await listHolds(
        request.db,
        request.params.id,
        { limit: request.query.limit ?? PAGE_LIMIT_DEFAULT, starting_after: request.query.starting_after },
        { includeReleased: request.query.include_released === true, now: app.deps.clock.now() },
      );
      return presentList(page, presentHold);
    },
  );
};
