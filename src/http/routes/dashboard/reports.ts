/**
 * Reports (docs/dashboard.md, "Reports"): an event's sales, scoped to the session's
 * organizer (another organizer's event is not found).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getEventReport } from '../../../domain/reports/event-report.ts';
import { errorResponses, IdParams, success } from '../../schemas/common.ts';
import { EventReport, EventReportQuery } from '../../schemas/reports.ts';
import { sessionOf } from './session.ts';

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/reports/events/:id',
    {
      config: { resource: 'Event', reads: 'replica' },
      schema: {
        tags: ['reports'],
        operationId: 'getEventReport',
        summary: 'An event’s sales: sold, remaining, money, sales over time',
        description:
          'Per event, performance and ticket type: sold, remaining (as the availability endpoint counts it), checked in, held; the money by tender, fees, taxes, refunds and net; and sales over time in buckets of `interval` (hour or day, default day) cut in the event’s time zone. Every figure is defined in docs/dashboard.md, "Reports".',
        params: IdParams,
        querystring: EventReportQuery,
        response: { 200: success(EventReport), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getEventReport(
        request.db,
        sessionOf(request).organizerId,
        request.params.id,
        request.query.interval ?? 'day',
        app.deps.clock.now(),
      ),
  );
};
