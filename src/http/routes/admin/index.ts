/** The admin API (tag `admin` of the OpenAPI document), mounted at /admin/v1 behind the admin token. */
import type { FastifyPluginAsync } from 'fastify';
import { adminAuth } from '../../plugins/admin-auth.ts';
import { registerAudit } from '../../plugins/audit.ts';
import { listEmailsRoute } from './emails/list-emails.ts';
import { cancelOrderRoute } from './orders/cancel-order.ts';
import { refundOrderRoute } from './orders/refund-order.ts';
import { settleOrderRoute } from './orders/settle-order.ts';
import { createQuestionRoute } from './questions/create-question.ts';
import { updateQuestionRoute } from './questions/update-question.ts';
import { settleRefundRoute } from './refunds/settle-refund.ts';
import { scanTicketRoute } from './scan/scan-ticket.ts';
import { transferTicketRoute } from './tickets/transfer-ticket.ts';
import { testWebhookEndpointRoute } from './webhook-endpoints/test-webhook-endpoint.ts';
import { createApiKeyRoute } from './api-keys/create-api-key.ts';
import { listApiKeysRoute } from './api-keys/list-api-keys.ts';
import { revokeApiKeyRoute } from './api-keys/revoke-api-key.ts';
import { createOrganizerRoute } from './organizers/create-organizer.ts';
import { getOrganizerRoute } from './organizers/get-organizer.ts';
import { listOrganizersRoute } from './organizers/list-organizers.ts';
import { updateOrganizerRoute } from './organizers/update-organizer.ts';
import { publishEventRoute } from './events/publish-event.ts';
import { createHoldRoute } from './holds/create-hold.ts';
import { listHoldsRoute } from './holds/list-holds.ts';
import { releaseHoldRoute } from './holds/release-hold.ts';
import { createUserRoute } from './users/create-user.ts';

export const adminRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', adminAuth);
  // The operator's writes go to the audit log of the organizer they touch.
  registerAudit(app, 'admin');
  // Document every admin route as secured by the admin token, not an API key.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, security: [{ adminToken: [] }] };
  });
  await app.register(createOrganizerRoute);
  await app.register(listOrganizersRoute);
  await app.register(getOrganizerRoute);
  await app.register(updateOrganizerRoute);
  await app.register(createUserRoute);
  await app.register(createApiKeyRoute);
  await app.register(listApiKeysRoute);
  await app.register(revokeApiKeyRoute);
  await app.register(publishEventRoute);
  await app.register(listHoldsRoute);
  await app.register(createHoldRoute);
  await app.register(releaseHoldRoute);
  await app.register(testWebhookEndpointRoute);
  // Orders, tickets, questions, the gate scanner and the mail log.
  await app.register(createQuestionRoute);
  await app.register(updateQuestionRoute);
  await app.register(settleOrderRoute);
  await app.register(refundOrderRoute);
  await app.register(cancelOrderRoute);
  await app.register(settleRefundRoute);
  await app.register(transferTicketRoute);
  await app.register(scanTicketRoute);
  await app.register(listEmailsRoute);
};
