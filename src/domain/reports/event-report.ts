/**
 * The event report (docs/dashboard.md, "Reports"): per event and per performance, what
 * is sold, remains, is checked in and held, by ticket type; the money by tender, fees,
 * taxes, refunds and net; and sales over time in buckets of the event's time zone. The
 * figures come from one SQL statement (src/db/repositories/reports.ts); this module only
 * adds them up and names them.
 */
import {
  selectEventReport,
  type EventReportRows,
  type ReportInterval,
  type ReportTypeRow,
} from '../../db/repositories/reports.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/domain-error.ts';

/** Payments' internal tender names → the API's (as SettleOrder's `tender`); `free`: a free order. */
const TENDER_NAMES = { cash: 'cash', card: 'card', bankTransfer: 'bank_transfer', free: 'free' } as const;
type ReportTender = (typeof TENDER_NAMES)[keyof typeof TENDER_NAMES];
const TENDER_ORDER: ReportTender[] = ['cash', 'card', 'bank_transfer', 'free'];

const sum = <T>(rows: T[], pick: (row: T) => number) => rows.reduce((total, row) => total + Number(pick(row)), 0);

/** What a ticket type brought in: paid, less what refunds return (refunded or pending). */
const netOf = (row: ReportTypeRow) => Number(row.gross_minor) - Number(row.refunded_minor);

/** Each performance with its ticket types, in schedule order (refunded and cancelled for the totals). */
function performancesOf(rows: EventReportRows) {
  return rows.performances.map((p) => {
    const types = rows.types.filter((ty) => ty.performance_id === p.performance_id);
    return {
      performance_id: p.performance_id,
      starts_at: new Date(p.starts_at),
      title: p.title,
      capacity: p.capacity,
      sold: sum(types, (ty) => ty.sold),
      remaining: p.remaining,
      checked_in: sum(types, (ty) => ty.checked_in),
      held: Number(p.held),
      refunded: sum(types, (ty) => ty.refunded),
      cancelled: sum(types, (ty) => ty.cancelled),
      ticket_types: types.map((ty) => ({
        ticket_type_id: ty.ticket_type_id,
        name: ty.name,
        price_minor: ty.price_minor,
        cap: ty.cap,
        sold: ty.sold,
        remaining: ty.remaining,
        checked_in: ty.checked_in,
        held: ty.held,
        refunded: ty.refunded,
        cancelled: ty.cancelled,
        revenue_minor: netOf(ty),
      })),
    };
  });
}

function totalsOf(rows: EventReportRows, performances: ReturnType<typeof performancesOf>) {
  const gross = sum(rows.types, (ty) => ty.gross_minor);
  const refunded = sum(rows.types, (ty) => ty.refunded_minor);
  return {
    capacity: sum(performances, (p) => p.capacity),
    sold: sum(performances, (p) => p.sold),
    remaining: sum(performances, (p) => p.remaining),
    checked_in: sum(performances, (p) => p.checked_in),
    refunded: sum(performances, (p) => p.refunded),
    cancelled: sum(performances, (p) => p.cancelled),
    held: sum(performances, (p) => p.held),
    orders: Number(rows.orders),
    gross_minor: gross,
    fees_minor: sum(rows.types, (ty) => ty.fees_minor),
    taxes_minor: sum(rows.types, (ty) => ty.taxes_minor),
    refunded_minor: refunded,
    net_minor: gross - refunded,
  };
}

export async function getEventReport(
  db: Executor,
  organizerId: string,
  eventId: string,
  interval: ReportInterval,
  now: Date,
) {
  const rows = await selectEventReport(db, organizerId, eventId, interval, now);
  if (!rows) throw notFound('Event');
  const performances = performancesOf(rows);
  return {
    object: 'event_report' as const,
    event_id: eventId,
    currency: rows.currency,
    timezone: rows.timezone,
    interval,
    generated_at: now,
    totals: totalsOf(rows, performances),
    by_tender: rows.by_tender
      .map((row) => ({
        tender: TENDER_NAMES[row.tender as keyof typeof TENDER_NAMES],
        orders: Number(row.orders),
        amount_minor: Number(row.amount_minor),
      }))
      .sort((a, b) => TENDER_ORDER.indexOf(a.tender) - TENDER_ORDER.indexOf(b.tender)),
    performances: performances.map(({ refunded: _refunded, cancelled: _cancelled, ...p }) => p),
    sales_over_time: rows.buckets.map((b) => ({
      period_start: new Date(b.period_start),
      orders: Number(b.orders),
      tickets: Number(b.tickets),
      revenue_minor: Number(b.revenue_minor),
    })),
  };
}
