import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { revoke } from '../../../../domain/auth/api-keys.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { RevokedApiKey } from '../../../schemas/organizers.ts';
import { presentRevokedApiKey } from '../../../presenters/organizers.ts';

export const revokeApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api_keys/:id/revoke',
    {
      config: { resource: 'API key' },
      schema: {
        tags: ['admin'],
        operationId: 'adminRevokeApiKey',
        summary: 'Revoke an API key: it answers 401 from now on',
        description: 'The key answers 401 from now on, on every process.',
        params: IdParams,
        response: { 200: success(RevokedApiKey), ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request) =>
      presentRevokedApiKey(await revoke(request.db, app.deps.caches.apiKeys, request.params.id, app.deps.clock.now())),
  );
};
