/**
 * A performance's attendance at the door (docs/check-ins.md, "Attendance"), scoped to the
 * session's organizer (another organizer's performance is not found).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getAttendance } from '../../../domain/reports/attendance.ts';
import { Attendance } from '../../schemas/attendance.ts';
import { errorResponses, IdParams, success } from '../../schemas/common.ts';
import { sessionOf } from './session.ts';

export const attendanceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id/attendance',
    {
      config: { resource: 'Performance', reads: 'replica' },
      schema: {
        tags: ['reports'],
        operationId: 'getAttendance',
        summary: 'A performance’s attendance: admitted, per gate, per minute, double entries',
        description:
          'Tickets sold (purchased or checked in) and admitted; the admissions per gate (each door device, and "Console and API" for the rest) with the last one’s time; admissions per minute over the last 15 whole minutes and the current one; the newest 50 double entries (an uploaded scan of a ticket admitted before), with the first admission and the second scan (docs/check-ins.md).',
        params: IdParams,
        response: { 200: success(Attendance), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getAttendance(request.db, sessionOf(request).organizerId, request.params.id, app.deps.clock.now()),
  );
};
