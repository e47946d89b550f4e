import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createOrganizer } from '../../../../domain/organizers/organizers.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { CreateOrganizer, Organizer } from '../../../schemas/organizers.ts';
import { presentOrganizer } from '../../../presenters/organizers.ts';

export const createOrganizerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/organizers',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateOrganizer',
        summary: 'Create an organizer',
        description: 'A new tenant with default settings; create its API keys next.',
        body: CreateOrganizer,
        response: { 201: success(Organizer), ...errorResponses(400, 401, 413, 415) },
      },
    },
    async (request, reply) => {
      const row = await createOrganizer(request.db, request.body);
      return reply.code(201).send(presentOrganizer(row));
    },
  );
};
