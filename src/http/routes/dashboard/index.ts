/**
 * The dashboard API, mounted at /dashboard/v1 (docs/dashboard.md): the person's surface.
 * Cookies are parsed in this scope only. Every write passes the cross-site check; the
 * public routes (sign-in, the one-time links) need nothing more; every other route needs
 * the session, its CSRF token on writes and the role's permission, in that order, and
 * is counted per user by the read/write rate limits. The /v1 operations are the same
 * route modules, registered again here (sharedOperations).
 */
import cookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import {
  assertOperationInMatrix,
  refuseCrossSiteWrites,
  requireCsrfToken,
  requirePermission,
  sessionAuth,
} from '../../plugins/session-auth.ts';
import { callerRateLimit, limitsPerCaller } from '../../plugins/rate-limit.ts';
import { registerIdempotency } from '../../plugins/idempotency.ts';
import { registerAudit } from '../../plugins/audit.ts';
import { sharedOperations } from '../v1/index.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { attendanceRoutes } from './attendance.ts';
import { auditLogRoutes } from './audit-log.ts';
import { catalogRoutes } from './catalog.ts';
import { doorDeviceRoutes } from './door-devices.ts';
import { eventTicketSettingsRoutes } from './event-ticket-settings.ts';
import { walletAppleRoutes } from './wallet-apple.ts';
import { walletGoogleRoutes } from './wallet-google.ts';
import { linkRoutes } from './links.ts';
import { memberRoutes } from './members.ts';
import { operationRoutes } from './operations.ts';
import { organizerRoutes } from './organizer.ts';
import { profileRoutes } from './profile.ts';
import { reportRoutes } from './reports.ts';
import { sessionRoutes, signInRoute } from './session.ts';

export const dashboardRoutes: FastifyPluginAsync = async (app) => {
  await app.register(cookie);
  app.decorateRequest('session', undefined);
  app.addHook('onRequest', refuseCrossSiteWrites);
  // Every successful write of a person, and each sign-in, goes to the audit log.
  registerAudit(app, 'dashboard');
  app.get('/openapi.json', { schema: { hide: true }, config: { dashboardAccess: 'public' } }, async () =>
    app.dashboardSwagger(),
  );
  await app.register(signInRoute);
  await app.register(linkRoutes);
  await app.register(async (signedIn) => {
    signedIn.addHook('onRoute', assertOperationInMatrix);
    signedIn.addHook('onRequest', sessionAuth);
    signedIn.addHook('onRequest', requireCsrfToken);
    signedIn.addHook('onRequest', requirePermission);
    signedIn.addHook('onRequest', callerRateLimit(app.deps.rateLimiter));
    limitsPerCaller(signedIn);
    registerIdempotency(signedIn);
    await signedIn.register(sessionRoutes);
    await signedIn.register(profileRoutes);
    await signedIn.register(memberRoutes);
    await signedIn.register(apiKeyRoutes);
    await signedIn.register(operationRoutes);
    await signedIn.register(catalogRoutes);
    await signedIn.register(eventTicketSettingsRoutes);
    await signedIn.register(walletAppleRoutes);
    await signedIn.register(walletGoogleRoutes);
    await signedIn.register(organizerRoutes);
    await signedIn.register(reportRoutes);
    await signedIn.register(attendanceRoutes);
    await signedIn.register(auditLogRoutes);
    await signedIn.register(doorDeviceRoutes);
    await signedIn.register(sharedOperations);
  });
};

declare module 'fastify' {
  interface FastifyInstance {
    /** The dashboard's own OpenAPI document (@fastify/swagger's second instance, src/http/openapi.ts). */
    dashboardSwagger: () => Record<string, unknown>;
  }
}
