import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import { getPerformanceCalendar } from '../../../../domain/catalog/performance-calendar.ts';
import { tenantOf } from '../../../context.ts';
import { CalendarFile } from '../../../schemas/calendars.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';

export const getPerformanceCalendarRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id/calendar.ics',
    {
      config: { resource: 'Performance', reads: 'replica' },
      schema: {
        tags: ['performances'],
        operationId: 'getPerformanceCalendar',
        summary: 'Download a performance as a calendar file (.ics)',
        description:
          "The performance as an iCalendar event: the event's title, start and end in the event's time zone (with its " +
          'VTIMEZONE), the venue, and the organizer, in the event\'s language (docs/tickets.md, "Calendar files"). ' +
          'The e-ticket mail attaches the same entry per performance. An unknown or another organizer’s performance answers 404.',
        params: IdParams,
        response: { 200: CalendarFile, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const file = await getPerformanceCalendar(request.db, tenantOf(request).organizerId, request.params.id);
      const ascii = file.filename
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/[^\x20-\x7e]+/g, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^-/, '');
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('content-disposition', contentDisposition(file.filename, { fallback: ascii }))
        .send(file.content);
    },
  );
};
