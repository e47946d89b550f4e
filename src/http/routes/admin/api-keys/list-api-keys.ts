import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listApiKeys } from '../../../../domain/auth/api-keys.ts';
import {
  errorResponses,
  IdParams,
  ListOf,
  PAGE_LIMIT_DEFAULT,
  PaginationQuery,
  success,
} from '../../../schemas/common.ts';
import { ListedApiKey } from '../../../schemas/organizers.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentListedApiKey } from '../../../presenters/organizers.ts';

export const listApiKeysRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizers/:id/api_keys',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['admin'],
        operationId: 'adminListApiKeys',
        summary: "An organizer's API keys, revoked ones included, newest first (never the key itself)",
        description:
          'Every key of the organizer, revoked ones included, newest first. Never the key itself: a lost key is replaced by revoking it and creating another.',
        params: IdParams,
        querystring: Type.Object(PaginationQuery, { additionalProperties: false }),
        response: { 200: success(ListOf(ListedApiKey)), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const page = await listApiKeys(request.db, request.params.id, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentListedApiKey);
    },
  );
};
