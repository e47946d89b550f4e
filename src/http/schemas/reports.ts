/** The event report's shapes (docs/dashboard.md, "Reports"). */
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Minor = (description: string) => Type.Integer({ description: `${description}, minor units` });

const ReportInterval = StringEnum(['hour', 'day'] as const, {
  description: 'the size of a sales_over_time bucket, cut in the event’s time zone',
});

export const EventReportQuery = Type.Object(
  { interval: Type.Optional(ReportInterval) },
  { additionalProperties: false },
);

const ReportTicketType = Type.Object({
  ticket_type_id: Uuid,
  name: Type.String(),
  price_minor: Minor('the price on this performance'),
  cap: Nullable(Type.Integer({ description: 'the type’s quantity on this performance; null: no cap' })),
  sold: Count('tickets purchased or checked in'),
  remaining: Count('what GET /performances/{id}/availability says of the type; 0 when it is not on sale'),
  checked_in: Count('tickets checked in'),
  held: Count('active holds of this type'),
  refunded: Count('tickets refunded'),
  cancelled: Count('tickets cancelled'),
  revenue_minor: Minor('what the type’s tickets brought in: paid, less refunds returned or pending'),
});

const ReportPerformance = Type.Object({
  performance_id: Uuid,
  starts_at: Timestamp,
  title: Nullable(Type.String()),
  capacity: Count('seats of the performance'),
  sold: Count('tickets purchased or checked in'),
  remaining: Count('what GET /performances/{id}/availability says'),
  checked_in: Count('tickets checked in'),
  held: Count('active holds, with or without a ticket type'),
  ticket_types: Type.Array(ReportTicketType),
});

export const EventReport = Type.Object({
  object: Type.Literal('event_report'),
  event_id: Uuid,
  currency: Type.String({ description: 'ISO 4217: the organizer’s, every amount’s' }),
  timezone: Type.String({ description: 'the event’s IANA zone, which the buckets are cut in' }),
  interval: ReportInterval,
  generated_at: Timestamp,
  totals: Type.Object({
    capacity: Count('seats of every performance'),
    sold: Count('tickets purchased or checked in'),
    remaining: Count('the performances’ remaining, added up'),
    checked_in: Count('tickets checked in'),
    refunded: Count('tickets refunded'),
    cancelled: Count('tickets cancelled'),
    held: Count('active holds'),
    orders: Count('orders with a ticket of the event, cancelled ones aside'),
    gross_minor: Minor('paid for the event’s tickets (payments; a free order pays 0), fees and tax included'),
    fees_minor: Minor('box-office fees in net_minor'),
    taxes_minor: Minor('tax in net_minor'),
    refunded_minor: Minor('returned or being returned by refunds (refunded or pending; a failed one returned nothing)'),
    net_minor: Minor('gross_minor − refunded_minor'),
  }),
  by_tender: Type.Array(
    Type.Object({
      tender: StringEnum(['cash', 'card', 'bank_transfer', 'free'] as const),
      orders: Count('orders paid this way'),
      amount_minor: Minor('what they paid for the event’s tickets'),
    }),
    { description: 'the gross by how it was paid; amounts add up to gross_minor' },
  ),
  performances: Type.Array(ReportPerformance),
  sales_over_time: Type.Array(
    Type.Object({
      period_start: Timestamp,
      orders: Count('orders placed in the period (cancelled ones aside)'),
      tickets: Count('their tickets that count as sold'),
      revenue_minor: Minor('money in (payments) less money out (refunds) in the period'),
    }),
    { description: 'periods with activity only, oldest first; they add up to the totals' },
  ),
});
