import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createOrganizer } from '../../../../domain/organizers/organizers.ts';
import { errorResponses } from '../../../schemas/common.ts';
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
        body: CreateOrganizer,
        response: { 201: Organizer, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const row = await createOrganizer(request.db, request.body);
      return reply.code(201).send(presentOrganizer(row));
    },
  );
};
