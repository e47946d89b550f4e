import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forgetApiKey, revoke } from '../../../../domain/auth/api-keys.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { RevokedApiKey } from '../../../schemas/organizers.ts';

export const revokeApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api_keys/:id/revoke',
    {
      config: { resource: 'API key' },
      schema: {
        tags: ['admin'],
        operationId: 'adminRevokeApiKey',
        summary: 'Revoke an API key: it answers 401 from now on',
        params: IdParams,
        response: { 200: RevokedApiKey, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const row = await revoke(request.db, request.params.id, app.deps.clock.now());
      // Committed (one statement on the shared handle): this instance answers 401 from the
      // next request; other instances within the lookup cache's TTL (docs/architecture.md).
      forgetApiKey(app.deps.caches.apiKeys, row.key_hash);
      return { id: row.id, object: 'api_key' as const, revoked_at: row.revoked_at! };
    },
  );
};
