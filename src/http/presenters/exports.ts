/**
 * Export rows → CSV (docs/exports.md): the columns of each export, the cell rules, the
 * stream of CSV text (csv-stringify: RFC 4180 quoting, CRLF records, the optional UTF-8
 * BOM, and formula-injection escaping) and the download's file name.
 *
 * Cells: text as stored; integers as numbers; timestamps as ISO 8601 UTC; null as an empty
 * cell; a multi-select answer as its option keys joined by "; ". A text cell that starts
 * with `=`, `+`, `-`, `@`, a tab or a carriage return (or their full-width forms) is
 * prefixed with `'` (OWASP, CSV injection); number cells are never prefixed: the server
 * writes them, they are not user text.
 */
import { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import { stringify } from 'csv-stringify/sync';
import {
  orderQuestions,
  type AnswerValue,
  type ExportPlan,
  type OrderExport,
  type TicketExport,
} from '../../domain/exports/exports.ts';

type Cell = string | number | null;

export interface Column<T> {
  header: string;
  cell: (row: T) => Cell;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const answerCell = (value: AnswerValue | undefined): string | null =>
  value === undefined ? null : Array.isArray(value) ? value.join('; ') : value;

/** The header of a registration question's column. */
const answerHeader = (key: string) => `answer_${key}`;

const ORDER_COLUMNS: Column<OrderExport>[] = [
  { header: 'order_no', cell: (r) => r.order_no },
  { header: 'order_id', cell: (r) => r.order_id },
  { header: 'status', cell: (r) => r.status },
  { header: 'channel', cell: (r) => r.channel },
  { header: 'created_at', cell: (r) => iso(r.created_at) },
  { header: 'buyer_first_name', cell: (r) => r.buyer_first_name },
  { header: 'buyer_last_name', cell: (r) => r.buyer_last_name },
  { header: 'buyer_email', cell: (r) => r.buyer_email },
  { header: 'buyer_phone', cell: (r) => r.buyer_phone },
  { header: 'transaction_no', cell: (r) => r.transaction_no },
  { header: 'performance_id', cell: (r) => r.performance_id },
  { header: 'performance_title', cell: (r) => r.performance_title },
  { header: 'performance_starts_at', cell: (r) => iso(r.performance_starts_at) },
  { header: 'ticket_count', cell: (r) => r.ticket_count },
  { header: 'currency', cell: (r) => r.currency },
  { header: 'items_total_minor', cell: (r) => r.items_total_minor },
  { header: 'service_fees_minor', cell: (r) => r.service_fees_minor },
  { header: 'surcharges_minor', cell: (r) => r.surcharges_minor },
  { header: 'taxes_minor', cell: (r) => r.taxes_minor },
  { header: 'total_minor', cell: (r) => r.total_minor },
  { header: 'order_total_minor', cell: (r) => r.order_total_minor },
  { header: 'etickets_sent_at', cell: (r) => iso(r.etickets_sent_at) },
];

const TICKET_COLUMNS: Column<TicketExport>[] = [
  { header: 'ticket_no', cell: (r) => r.ticket_no },
  { header: 'ticket_id', cell: (r) => r.id },
  { header: 'serial_no', cell: (r) => r.serial_no },
  { header: 'status', cell: (r) => r.status },
  { header: 'checked_in_at', cell: (r) => iso(r.checked_in_at) },
  { header: 'holder_first_name', cell: (r) => r.holder_first_name },
  { header: 'holder_last_name', cell: (r) => r.holder_last_name },
  { header: 'holder_email', cell: (r) => r.holder_email },
  { header: 'ticket_type_id', cell: (r) => r.ticket_type_id },
  { header: 'ticket_type_name', cell: (r) => r.ticket_type_name },
  { header: 'performance_id', cell: (r) => r.performance_id },
  { header: 'performance_title', cell: (r) => r.performance_title },
  { header: 'performance_starts_at', cell: (r) => iso(r.performance_starts_at) },
  { header: 'order_no', cell: (r) => r.order_no },
  { header: 'order_id', cell: (r) => r.order_id },
  { header: 'order_status', cell: (r) => r.order_status },
  { header: 'currency', cell: (r) => r.currency },
  { header: 'unit_price_minor', cell: (r) => r.unit_price_minor },
  { header: 'total_minor', cell: (r) => r.total_minor },
  { header: 'transferred_at', cell: (r) => iso(r.transferred_at) },
  { header: 'created_at', cell: (r) => iso(r.created_at) },
];

const answerColumns = <T extends { answers: ReadonlyMap<string, AnswerValue> }>(keys: string[]): Column<T>[] =>
  keys.map((key) => ({ header: answerHeader(key), cell: (r) => answerCell(r.answers.get(key)) }));

/** The orders export: one column per once-per-order question after the fixed ones. */
export function orderColumns(plan: ExportPlan): Column<OrderExport>[] {
  return [...ORDER_COLUMNS, ...answerColumns<OrderExport>(orderQuestions(plan).map((q) => q.key))];
}

/** The tickets export: one column per question of the event after the fixed ones. */
export function ticketColumns(plan: ExportPlan): Column<TicketExport>[] {
  return [...TICKET_COLUMNS, ...answerColumns<TicketExport>(plan.questions.map((q) => q.key))];
}

const CSV_OPTIONS = {
  record_delimiter: 'windows',
  // A bare CR or LF in a cell is quoted too, not only the CRLF record delimiter.
  quote_record_delimiter: true,
  escape_formulas: true,
} as const;

/**
 * Rows per chunk of CSV text: about 30 KB, under V8's large-object size, so a chunk is a
 * young object freed by the next scavenge rather than old-generation garbage kept until
 * a full collection.
 */
const ROWS_PER_CHUNK = 100;

/** Each batch as chunks of CSV text; the first with the header row (and the BOM when asked). */
async function* csvChunks<T>(batches: AsyncIterable<T[]>, columns: Column<T>[], bom: boolean): AsyncGenerator<string> {
  const headers = columns.map((c) => c.header);
  let first = true;
  for await (const batch of batches) {
    for (let at = 0; at === 0 || at < batch.length; at += ROWS_PER_CHUNK) {
      const records = batch.slice(at, at + ROWS_PER_CHUNK).map((row) => columns.map((c) => c.cell(row)));
      const text = stringify(records, { ...CSV_OPTIONS, columns: headers, header: first, bom: first && bom });
      first = false;
      // The last batch of an export that ends on a batch boundary is empty.
      if (text !== '') yield text;
    }
  }
}

/**
 * The CSV as a stream of text chunks. A batch is turned into text as soon as it is read
 * (csv-stringify's synchronous API), so its rows are not kept while the socket drains;
 * the stream holds about one chunk beyond what the socket buffers and asks the generator
 * for the next batch only when the current one has gone (backpressure reaches the
 * database reads). Destroying the stream (Fastify does when the client hangs up) ends
 * the generator. An error before the first byte becomes the route's problem response;
 * after it, the connection is cut, so a client never takes a truncated file for a whole
 * one.
 */
export function csvStream<T>(batches: AsyncIterable<T[]>, columns: Column<T>[], bom: boolean): Readable {
  return Readable.from(csvChunks(batches, columns, bom), { objectMode: false });
}

/** `attachment; filename=...`: the event's title reduced to letters, digits and dashes, plus what it holds. */
export function exportDisposition(plan: ExportPlan, kind: 'orders' | 'tickets'): string {
  const slug = (text: string) =>
    text
      .normalize('NFKC')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '');
  const title = slug(plan.event.title) || 'event';
  const when = plan.performance ? `-${plan.performance.starts_at.toISOString().slice(0, 16).replace(':', '')}` : '';
  const filename = `${title}${when}-${kind}.csv`;
  const ascii = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-/, '');
  return contentDisposition(filename, { fallback: ascii });
}
