/**
 * Printable tickets: each with its QR code (its serial), number, type, performance, holder
 * and status (a refunded, cancelled or checked-in ticket says so).
 */
import { useEffect, useState } from 'preact/hooks';
import type { EventDetail, Performance, Ticket } from '@marquee/sdk';
import { dateTime, money } from '../lib/format.ts';
import { qrDataUrl } from '../lib/qr.ts';

const STATUS_LABELS: Readonly<Record<Ticket['status'], string>> = {
  purchased: 'Valid',
  checked_in: 'Checked in',
  refunded: 'Refunded',
  cancelled: 'Cancelled',
};

/** A ticket's status in words: "Valid", "Checked in", "Refunded", "Cancelled". */
const ticketStatusLabel = (status: Ticket['status']): string => STATUS_LABELS[status];

export function PrintableTickets({
  tickets,
  events,
  performances,
  currency,
}: {
  tickets: Ticket[];
  /** The events of the tickets, by performance id (names of the types, the time zone). */
  events: Record<string, EventDetail>;
  performances: Record<string, Performance>;
  currency: string;
}) {
  return (
    <ul class="tickets print-area" aria-label="Tickets">
      {tickets.map((ticket) => {
        const event = events[ticket.performance_id];
        const performance = performances[ticket.performance_id];
        const type = event?.ticket_types.find((t) => t.id === ticket.ticket_type_id);
        return (
          <li class="ticket" key={ticket.id} data-ticket-no={ticket.ticket_no}>
            <QrImage serialNo={ticket.serial_no} label={`QR code of ticket ${ticket.ticket_no}`} />
            <p>
              <strong>{event?.title}</strong>
            </p>
            {performance !== undefined && event !== undefined && (
              <p>{dateTime(performance.starts_at, event.timezone)}</p>
            )}
            <p>
              Ticket <span class="ticket-no">{ticket.ticket_no}</span> · {type?.name ?? 'Ticket'} ·{' '}
              {ticket.is_free ? 'Free' : money(ticket.total_minor, currency)}
            </p>
            <p class="holder">
              {ticket.holder.first_name} {ticket.holder.last_name ?? ''} · {ticket.holder.email}
            </p>
            <p class="ticket-status">{ticketStatusLabel(ticket.status)}</p>
            <p class="hint">Serial {ticket.serial_no}</p>
          </li>
        );
      })}
    </ul>
  );
}

function QrImage({ serialNo, label }: { serialNo: string; label: string }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let live = true;
    void qrDataUrl(serialNo).then((url) => live && setSrc(url));
    return () => {
      live = false;
    };
  }, [serialNo]);
  return src === undefined ? <p class="loading">Drawing the QR code…</p> : <img src={src} alt={label} class="qr" />;
}
