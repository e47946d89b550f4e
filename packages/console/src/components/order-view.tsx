/**
 * An order as the box office reads it: number, status, buyer, the totals of each
 * transaction (items, service fees, surcharges, taxes) in the order's currency, the
 * answers, and the tickets, printable with their QR codes. The sale's result and the order
 * detail screen both show it; the screen puts its actions after the facts.
 */
import type { ComponentChildren } from 'preact';
import type { EventDetail, Marquee, OrderDetail, Performance } from '@marquee/sdk';
import { dateTime, money } from '../lib/format.ts';
import { PrintableTickets } from './tickets.tsx';
import { NumCol } from './table-headers.tsx';

export interface OrderContext {
  /** The events of the order's transactions, by performance id. */
  events: Record<string, EventDetail>;
  performances: Record<string, Performance>;
}

export function OrderView({
  order,
  context,
  children,
}: {
  order: OrderDetail;
  context: OrderContext;
  /** Shown after the order's facts: the order screen's actions (./order-actions.tsx). */
  children?: ComponentChildren;
}) {
  const currency = order.currency;
  const zoneOf = (performanceId: string) => context.events[performanceId]?.timezone ?? 'UTC';
  const tickets = order.transactions.flatMap((t) => t.items ?? []);
  return (
    <>
      <dl class="facts">
        <dt>Order number</dt>
        <dd class="order-no">{order.order_no}</dd>
        <dt>Status</dt>
        <dd>{order.status}</dd>
        <dt>Buyer</dt>
        <dd>
          {order.buyer.first_name} {order.buyer.last_name ?? ''} · {order.buyer.email}
          {order.buyer.phone !== null ? ` · ${order.buyer.phone}` : ''}
        </dd>
        <dt>Placed</dt>
        <dd>{dateTime(order.created_at, zoneOf(order.transactions[0]?.performance_id ?? ''))}</dd>
        <dt>Total</dt>
        <dd class="order-total">{money(order.total_minor, currency)}</dd>
      </dl>
      {children}
      <h2>Transactions</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Transaction</th>
            <th scope="col">Performance</th>
            <NumCol>Items</NumCol>
            <NumCol>Service fees</NumCol>
            <NumCol>Surcharges</NumCol>
            <NumCol>Taxes</NumCol>
            <NumCol>Total</NumCol>
          </tr>
        </thead>
        <tbody>
          {order.transactions.map((t) => {
            const event = context.events[t.performance_id];
            const performance = context.performances[t.performance_id];
            return (
              <tr key={t.id}>
                <td>{t.transaction_no}</td>
                <td>
                  {event?.title ?? t.event_id}
                  {performance !== undefined && event !== undefined
                    ? `, ${dateTime(performance.starts_at, event.timezone)}`
                    : ''}
                </td>
                <td class="num">{money(t.items_total_minor, currency)}</td>
                <td class="num">{money(t.service_fees_minor, currency)}</td>
                <td class="num">{money(t.surcharges_minor, currency)}</td>
                <td class="num">{money(t.taxes_minor, currency)}</td>
                <td class="num">{money(t.total_minor, currency)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {order.registration_answers.length > 0 && (
        <>
          <h2>Answers</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Question</th>
                <th scope="col">Ticket</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {order.registration_answers.map((a, i) => (
                <tr key={i}>
                  <td>{a.label}</td>
                  <td>{a.ticket_no ?? 'Order'}</td>
                  <td>{a.value_labels?.join(', ') ?? (Array.isArray(a.value) ? a.value.join(', ') : a.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <div class="screen-head">
        <h2>Tickets</h2>
        {tickets.length > 0 && (
          <button type="button" class="secondary" onClick={() => window.print()}>
            Print tickets
          </button>
        )}
      </div>
      <PrintableTickets
        tickets={tickets}
        events={context.events}
        performances={context.performances}
        currency={currency}
      />
    </>
  );
}

/** Loads the events and performances an order refers to. */
export async function loadOrderContext(client: Marquee, order: OrderDetail): Promise<OrderContext> {
  const context: OrderContext = { events: {}, performances: {} };
  const events = new Map<string, Promise<EventDetail>>();
  await Promise.all(
    order.transactions.map(async (t) => {
      if (!events.has(t.event_id)) events.set(t.event_id, client.events.get(t.event_id));
      const [event, performance] = await Promise.all([
        events.get(t.event_id)!,
        client.performances.get(t.performance_id),
      ]);
      context.events[t.performance_id] = event;
      context.performances[t.performance_id] = performance;
    }),
  );
  return context;
}
