import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listOrganizers } from '../../../../domain/organizers/organizers.ts';
import { errorResponses, ListOf, PAGE_LIMIT_DEFAULT, PaginationQuery, success } from '../../../schemas/common.ts';
import { Organizer } from '../../../schemas/organizers.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentOrganizer } from '../../../presenters/organizers.ts';

export const listOrganizersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizers',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminListOrganizers',
        summary: 'Every organizer, newest first',
        description: 'Every organizer of the deployment, newest first and paginated.',
        querystring: Type.Object(PaginationQuery, { additionalProperties: false }),
        response: { 200: success(ListOf(Organizer)), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await listOrganizers(request.db, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentOrganizer);
    },
  );
};
