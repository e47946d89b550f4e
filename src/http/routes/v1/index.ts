/**
 * The public /v1 API. Every route here is behind API key authentication; add a
 * resource by registering its routes plugin below.
 */
import type { FastifyPluginAsync } from 'fastify';
import { apiKeyAuth } from '../../plugins/api-key-auth.ts';
import { createEventRoute } from './events/create-event.ts';
import { getEventRoute } from './events/get-event.ts';
import { listEventsRoute } from './events/list-events.ts';
import { updateEventRoute } from './events/update-event.ts';
import { listEventPerformancesRoute } from './events/list-event-performances.ts';
import { getPerformanceRoute } from './performances/get-performance.ts';
import { getAvailabilityRoute } from './performances/get-availability.ts';

export const v1Routes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', apiKeyAuth);
  await app.register(listEventsRoute);
  await app.register(createEventRoute);
  await app.register(getEventRoute);
  await app.register(updateEventRoute);
  await app.register(listEventPerformancesRoute);
  await app.register(getPerformanceRoute);
  await app.register(getAvailabilityRoute);
};
