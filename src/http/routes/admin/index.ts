/** The admin API (operations.md section 3), mounted at /admin/v1 behind the admin token. */
import type { FastifyPluginAsync } from 'fastify';
import { adminAuth } from '../../plugins/admin-auth.ts';
import { testWebhookEndpointRoute } from './webhook-endpoints/test-webhook-endpoint.ts';
import { createApiKeyRoute } from './api-keys/create-api-key.ts';
import { revokeApiKeyRoute } from './api-keys/revoke-api-key.ts';
import { createOrganizerRoute } from './organizers/create-organizer.ts';
import { getOrganizerRoute } from './organizers/get-organizer.ts';
import { updateOrganizerRoute } from './organizers/update-organizer.ts';
import { publishEventRoute } from './events/publish-event.ts';
import { createHoldRoute } from './holds/create-hold.ts';
import { releaseHoldRoute } from './holds/release-hold.ts';

export const adminRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', adminAuth);
  // Document every admin route as secured by the admin token, not an API key.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, security: [{ adminToken: [] }] } as typeof route.schema;
  });
  await app.register(createOrganizerRoute);
  await app.register(getOrganizerRoute);
  await app.register(updateOrganizerRoute);
  await app.register(createApiKeyRoute);
  await app.register(revokeApiKeyRoute);
  await app.register(publishEventRoute);
  await app.register(createHoldRoute);
  await app.register(releaseHoldRoute);
  await app.register(testWebhookEndpointRoute);
};
