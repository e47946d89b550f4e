/**
 * What the buyer carries, downloadable from the order screen (docs/tickets.md): the PDF
 * tickets, a calendar file per performance, when the organizer has Apple Wallet settings
 * each ticket's pass, and when it has Google Wallet settings the order's "Add to Google
 * Wallet" link (the one the e-mail carries). Plain same-origin links: a GET of the
 * dashboard API needs only the session's cookie, and the browser saves what it answers.
 */
import { useEffect, useState } from 'preact/hooks';
import type { OrderDetail } from '@marquee/sdk';
import type { OrderContext } from './order-view.tsx';
import { dateTime } from '../lib/format.ts';

const API = '/dashboard/v1';
const USABLE = new Set(['purchased', 'checked_in']);

export function TicketDocuments({ order, context }: { order: OrderDetail; context: OrderContext }) {
  const tickets = order.transactions.flatMap((t) => t.items ?? []).filter((t) => USABLE.has(t.status));
  const performanceIds = [...new Set(tickets.map((t) => t.performance_id))];
  const firstTicket = tickets[0]?.id;
  // Passes only when the organizer has them: one probe of the first ticket's pass.
  const [passes, setPasses] = useState(false);
  useEffect(() => {
    setPasses(false);
    if (firstTicket === undefined) return;
    const probe = new AbortController();
    fetch(`${API}/tickets/${firstTicket}/pass.pkpass`, { signal: probe.signal })
      .then((res) => {
        setPasses(res.ok);
        return res.body?.cancel();
      })
      .catch(() => undefined);
    return () => probe.abort();
  }, [firstTicket]);
  // The Google Wallet link when the organizer has settings (404 without, 409 when its key no longer opens).
  const [googleWallet, setGoogleWallet] = useState<string | undefined>();
  useEffect(() => {
    setGoogleWallet(undefined);
    if (firstTicket === undefined) return;
    const asked = new AbortController();
    fetch(`${API}/orders/${order.id}/google_wallet`, { signal: asked.signal })
      .then(async (res) => (res.ok ? setGoogleWallet(((await res.json()) as { url: string }).url) : undefined))
      .catch(() => undefined);
    return () => asked.abort();
  }, [order.id, firstTicket]);
  if (tickets.length === 0) return null;
  return (
    <section aria-labelledby="ticket-documents">
      <h2 id="ticket-documents">What the buyer carries</h2>
      <ul class="documents">
        <li>
          <a href={`${API}/orders/${order.id}/tickets.pdf`} download>
            PDF tickets ({tickets.length === 1 ? '1 page' : `${tickets.length} pages`})
          </a>
        </li>
        {performanceIds.map((id) => {
          const event = context.events[id];
          const performance = context.performances[id];
          const when = performance && event ? dateTime(performance.starts_at, event.timezone) : id;
          return (
            <li key={id}>
              <a href={`${API}/performances/${id}/calendar.ics`} download>
                Calendar file: {event?.title ?? 'performance'}, {when}
              </a>
            </li>
          );
        })}
        {passes &&
          tickets.map((t) => (
            <li key={t.id}>
              <a href={`${API}/tickets/${t.id}/pass.pkpass`} download>
                Apple Wallet pass: ticket {t.ticket_no}
              </a>
            </li>
          ))}
        {googleWallet !== undefined && (
          <li>
            <a href={googleWallet} target="_blank" rel="noopener noreferrer">
              Add to Google Wallet ({tickets.length === 1 ? '1 ticket' : `${tickets.length} tickets`})
            </a>
          </li>
        )}
      </ul>
    </section>
  );
}
