/**
 * The public /v1 API. Every route here is behind API key authentication; add a
 * resource by registering its routes plugin below. The operations a person needs too
 * (sharedOperations) are mounted again under /dashboard/v1 with session authentication
 * (docs/dashboard.md, "One operation, two surfaces").
 */
import type { FastifyPluginAsync } from 'fastify';
import { apiKeyAuth } from '../../plugins/api-key-auth.ts';
import { createOrderRoute } from './orders/create-order.ts';
import { getOrderRoute } from './orders/get-order.ts';
import { getOrderTicketsPdfRoute } from './orders/get-order-tickets-pdf.ts';
import { getOrderGoogleWalletRoute } from './orders/get-order-google-wallet.ts';
import { getTicketApplePassRoute } from './tickets/get-ticket-apple-pass.ts';
import { listOrdersRoute } from './orders/list-orders.ts';
import { checkInTicketRoute } from './tickets/check-in-ticket.ts';
import { getTicketRoute } from './tickets/get-ticket.ts';
import { listTicketsRoute } from './tickets/list-tickets.ts';
import { callerRateLimit, limitsPerCaller } from '../../plugins/rate-limit.ts';
import { hooksOf } from '../../route-hooks.ts';
import { registerIdempotency } from '../../plugins/idempotency.ts';
import { registerAudit } from '../../plugins/audit.ts';
import { createWebhookEndpointRoute } from './webhook-endpoints/create-webhook-endpoint.ts';
import { deleteWebhookEndpointRoute } from './webhook-endpoints/delete-webhook-endpoint.ts';
import { getWebhookEndpointRoute } from './webhook-endpoints/get-webhook-endpoint.ts';
import { listWebhookDeliveriesRoute } from './webhook-endpoints/list-webhook-deliveries.ts';
import { listWebhookEndpointsRoute } from './webhook-endpoints/list-webhook-endpoints.ts';
import { rotateWebhookEndpointSecretRoute } from './webhook-endpoints/rotate-webhook-endpoint-secret.ts';
import { updateWebhookEndpointRoute } from './webhook-endpoints/update-webhook-endpoint.ts';
import { redeliverWebhookDeliveryRoute } from './webhook-deliveries/redeliver-webhook-delivery.ts';
import { getWebhookDeliveryRoute } from './webhook-deliveries/get-webhook-delivery.ts';
import { recoverWebhookEndpointRoute } from './webhook-endpoints/recover-webhook-endpoint.ts';
import { createEventRoute } from './events/create-event.ts';
import { getEventRoute } from './events/get-event.ts';
import { listEventsRoute } from './events/list-events.ts';
import { updateEventRoute } from './events/update-event.ts';
import { listEventPerformancesRoute } from './events/list-event-performances.ts';
import { listEventQuestionsRoute } from './events/list-event-questions.ts';
import { getPerformanceRoute } from './performances/get-performance.ts';
import { getAvailabilityRoute } from './performances/get-availability.ts';
import { getPerformanceCalendarRoute } from './performances/get-performance-calendar.ts';
import { exportOrdersRoute } from './exports/export-orders.ts';
import { exportTicketsRoute } from './exports/export-tickets.ts';
import { getCurrentApiKeyRoute } from './api-key/get-current-api-key.ts';
import { listCheckInsRoute } from './check-ins/list-check-ins.ts';
import { listDoorTicketsRoute } from './check-ins/list-door-tickets.ts';
import { uploadCheckInsRoute } from './check-ins/upload-check-ins.ts';
import { getCurrentDoorDeviceRoute } from './door-devices/get-current-door-device.ts';

export const v1Routes: FastifyPluginAsync = async (app) => {
  // The key, then the per-key read/write rate limit (the key id is known), as each route's
  // first hooks: its accepted scopes are worked out once, not read per request.
  const limitPerKey = callerRateLimit(app.deps.rateLimiter);
  limitsPerCaller(app);
  app.addHook('onRoute', (route) => {
    route.onRequest = [apiKeyAuth(route, app.deps), limitPerKey, ...hooksOf(route.onRequest)];
  });
  // Idempotency-Key on every POST and PATCH of this scope (docs/idempotency.md).
  registerIdempotency(app);
  // Every successful write goes to the organizer's audit log (docs/dashboard.md, "Audit log").
  registerAudit(app, 'v1');
  // The calling key itself: its scopes and organizer.
  await app.register(getCurrentApiKeyRoute);
  // A door's uploaded scans and its local copy (docs/check-ins.md); not on the dashboard.
  await app.register(uploadCheckInsRoute);
  await app.register(listCheckInsRoute);
  await app.register(listDoorTicketsRoute);
  // A door device's own settings and performances (its key only).
  await app.register(getCurrentDoorDeviceRoute);
  await app.register(sharedOperations);
};

/** Every /v1 operation but the calling key's own: the dashboard mounts these too. */
export const sharedOperations: FastifyPluginAsync = async (app) => {
  await app.register(listEventsRoute);
  await app.register(createEventRoute);
  await app.register(getEventRoute);
  await app.register(updateEventRoute);
  await app.register(listEventPerformancesRoute);
  await app.register(listEventQuestionsRoute);
  await app.register(getPerformanceRoute);
  await app.register(getAvailabilityRoute);
  await app.register(getPerformanceCalendarRoute);
  // Webhook endpoints and their delivery log.
  await app.register(listWebhookEndpointsRoute);
  await app.register(createWebhookEndpointRoute);
  await app.register(getWebhookEndpointRoute);
  await app.register(updateWebhookEndpointRoute);
  await app.register(deleteWebhookEndpointRoute);
  await app.register(rotateWebhookEndpointSecretRoute);
  await app.register(listWebhookDeliveriesRoute);
  await app.register(redeliverWebhookDeliveryRoute);
  await app.register(getWebhookDeliveryRoute);
  await app.register(recoverWebhookEndpointRoute);
  // Orders and tickets.
  await app.register(listOrdersRoute);
  await app.register(createOrderRoute);
  await app.register(getOrderRoute);
  await app.register(getOrderTicketsPdfRoute);
  await app.register(getOrderGoogleWalletRoute);
  await app.register(getTicketApplePassRoute);
  await app.register(listTicketsRoute);
  await app.register(getTicketRoute);
  await app.register(checkInTicketRoute);
  // CSV exports of an event (docs/exports.md).
  await app.register(exportOrdersRoute);
  await app.register(exportTicketsRoute);
};
