import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getOrganizer } from '../../../../domain/organizers/organizers.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Organizer } from '../../../schemas/organizers.ts';
import { presentOrganizer } from '../../../presenters/organizers.ts';

export const getOrganizerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizers/:id',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['admin'],
        operationId: 'adminGetOrganizer',
        summary: 'Get an organizer',
        description: 'The organizer and its settings.',
        params: IdParams,
        response: { 200: success(Organizer), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => presentOrganizer(await getOrganizer(request.db, request.params.id)),
  );
};
