import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { describeApiKey } from '../../../../domain/auth/api-keys.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { CurrentApiKey } from '../../../schemas/api-keys.ts';
import { presentCurrentApiKey } from '../../../presenters/api-keys.ts';

export const getCurrentApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api_key',
    {
      // Any valid key may read what it is: a client learns its scopes before it offers an action.
      config: { scope: 'any' },
      schema: {
        tags: ['api_key'],
        operationId: 'getCurrentApiKey',
        summary: 'Get the calling API key, its scopes and organizer',
        description:
          'The key that authenticated this request: its scopes (`read`, `write`), expiry and organizer (name, currency, time zone). Any valid key may call it, whatever its scopes; a client such as the console uses it to offer only the actions the key allows (docs/console.md).',
        response: { 200: success(CurrentApiKey), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => presentCurrentApiKey(await describeApiKey(request.db, tenantOf(request))),
  );
};
