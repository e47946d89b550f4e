import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { exportTicketBatches } from '../../../../domain/exports/exports.ts';
import { ticketColumns } from '../../../presenters/exports.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { ExportQuery, TicketsCsv } from '../../../schemas/exports.ts';
import { sendCsvExport } from './csv-export.ts';

export const exportTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:id/exports/tickets.csv',
    {
      config: { resource: 'Event', reads: 'replica' },
      schema: {
        tags: ['exports'],
        operationId: 'exportEventTickets',
        summary: "Export an event's tickets (attendees) as CSV",
        description:
          'Streams every ticket of the event (or of `performance_id`) as CSV: one row per ticket, oldest first, with its ' +
          'status, `checked_in_at`, holder, ticket type, performance and order, and one column per registration question ' +
          'of the event (`answer_<key>`). Read in batches, so any size costs the server constant memory; each batch is a ' +
          'consistent read, not the whole file (docs/exports.md). An unknown or another organizer’s event answers 404.',
        params: IdParams,
        querystring: ExportQuery,
        response: { 200: TicketsCsv, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      sendCsvExport(request, reply, { kind: 'tickets', batches: exportTicketBatches, columns: ticketColumns }),
  );
};
