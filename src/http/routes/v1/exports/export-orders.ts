import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { exportOrderBatches } from '../../../../domain/exports/exports.ts';
import { orderColumns } from '../../../presenters/exports.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { ExportQuery, OrdersCsv } from '../../../schemas/exports.ts';
import { sendCsvExport } from './csv-export.ts';

export const exportOrdersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:id/exports/orders.csv',
    {
      config: { resource: 'Event', reads: 'replica' },
      schema: {
        tags: ['exports'],
        operationId: 'exportEventOrders',
        summary: "Export an event's orders as CSV",
        description:
          'Streams every order with a transaction on the event (or on `performance_id`) as CSV: one row per order and ' +
          'performance, oldest first, with buyer, totals, fees and taxes, and one column per once-per-order registration ' +
          'question. Read in batches, so any size costs the server constant memory; each batch is a consistent read, not ' +
          'the whole file (docs/exports.md). An unknown or another organizer’s event answers 404.',
        params: IdParams,
        querystring: ExportQuery,
        response: { 200: OrdersCsv, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      sendCsvExport(request, reply, { kind: 'orders', batches: exportOrderBatches, columns: orderColumns }),
  );
};
