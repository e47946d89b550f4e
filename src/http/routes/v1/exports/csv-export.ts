/**
 * What both export routes do (docs/exports.md): plan the export (404 for another
 * organizer's event, 400 for a performance not of it), then stream its batches as a CSV
 * download that no cache keeps.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { planExport, type ExportPlan } from '../../../../domain/exports/exports.ts';
import { tenantOf } from '../../../context.ts';
import { csvStream, exportDisposition, type Column } from '../../../presenters/exports.ts';

/** What an export reads of its request: the event, and the query's performance and BOM. */
type ExportRequest = FastifyRequest & {
  params: { id: string };
  query: { performance_id?: string | undefined; bom?: boolean | undefined };
};

interface CsvExport<T> {
  kind: 'orders' | 'tickets';
  batches(db: FastifyRequest['db'], plan: ExportPlan, opts: { batchSize?: number }): AsyncIterable<T[]>;
  columns(plan: ExportPlan): Column<T>[];
}

export async function sendCsvExport<T, Reply extends FastifyReply>(
  request: ExportRequest,
  reply: Reply,
  csv: CsvExport<T>,
): Promise<Reply> {
  const plan = await planExport(
    request.db,
    tenantOf(request).organizerId,
    request.params.id,
    request.query.performance_id,
  );
  const rows = csv.batches(request.db, plan, { batchSize: request.server.deps.exportBatchSize });
  reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', exportDisposition(plan, csv.kind))
    // Personal data: no shared or private cache keeps a copy.
    .header('cache-control', 'no-store')
    .send(csvStream(rows, csv.columns(plan), request.query.bom ?? false));
  return reply;
}
