import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createApiKey } from '../../../../domain/auth/api-keys.ts';
import { getOrganizer } from '../../../../domain/organizers/organizers.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { CreateApiKey, CreatedApiKey } from '../../../schemas/organizers.ts';
import { presentCreatedApiKey } from '../../../presenters/organizers.ts';

export const createApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/organizers/:id/api_keys',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateApiKey',
        summary: 'Create an API key for an organizer (the raw key is shown once)',
        description: 'The raw key is in this response only; the service keeps its hash.',
        params: IdParams,
        body: CreateApiKey,
        response: { 201: success(CreatedApiKey), ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const organizer = await getOrganizer(request.db, request.params.id);
      const key = await createApiKey(request.db, {
        organizerId: organizer.id,
        name: request.body.name,
        scopes: request.body.scopes,
        expiresAt: request.body.expires_at ? new Date(request.body.expires_at) : null,
      });
      return reply.code(201).send(presentCreatedApiKey(key));
    },
  );
};
