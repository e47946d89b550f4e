/**
 * Developer settings (docs/dashboard.md, "Developer settings"): the organizer's API keys,
 * created, listed and revoked by an owner. The same domain functions as the admin API's,
 * scoped to the session's organizer, and a created key records who made it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createApiKey, listApiKeys, revoke } from '../../../domain/auth/api-keys.ts';
import {
  errorResponses,
  IdParams,
  ListOf,
  PAGE_LIMIT_DEFAULT,
  PaginationQuery,
  success,
} from '../../schemas/common.ts';
import { CreateApiKey, CreatedApiKey, ListedApiKey, RevokedApiKey } from '../../schemas/organizers.ts';
import { presentList } from '../../presenters/list.ts';
import { presentCreatedApiKey, presentListedApiKey, presentRevokedApiKey } from '../../presenters/organizers.ts';
import { sessionOf } from './session.ts';

const listApiKeysRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api_keys',
    {
      schema: {
        tags: ['developer'],
        operationId: 'listApiKeys',
        summary: 'The organizer’s API keys',
        description:
          'Every key, revoked and expired ones included, newest first: its preview, scopes, who created it, when it was last used and when it expires. Never the key itself.',
        querystring: Type.Object(PaginationQuery, { additionalProperties: false }),
        response: { 200: success(ListOf(ListedApiKey)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listApiKeys(request.db, sessionOf(request).organizerId, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentListedApiKey);
    },
  );
};

const createApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api_keys',
    {
      schema: {
        tags: ['developer'],
        operationId: 'createApiKey',
        summary: 'Create an API key (the raw key is shown once)',
        description:
          'A key of the session’s organizer with the scopes asked for and an optional expiry. The raw key is in this response only; the service keeps its hash.',
        body: CreateApiKey,
        response: { 201: success(CreatedApiKey), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const key = await createApiKey(request.db, {
        organizerId: session.organizerId,
        name: request.body.name,
        scopes: request.body.scopes,
        expiresAt: request.body.expires_at ? new Date(request.body.expires_at) : null,
        createdBy: session.userId,
      });
      return reply.code(201).send(presentCreatedApiKey(key));
    },
  );
};

const revokeApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api_keys/:id/revoke',
    {
      config: { resource: 'API key' },
      schema: {
        tags: ['developer'],
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key: it answers 401 from now on',
        description: 'The key answers the API’s generic 401 from its next request on.',
        params: IdParams,
        response: { 200: success(RevokedApiKey), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      presentRevokedApiKey(
        await revoke(
          request.db,
          app.deps.caches.apiKeys,
          request.params.id,
          app.deps.clock.now(),
          sessionOf(request).organizerId,
        ),
      ),
  );
};

/** The developer settings' routes. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [listApiKeysRoute, createApiKeyRoute, revokeApiKeyRoute]) await app.register(route);
};
