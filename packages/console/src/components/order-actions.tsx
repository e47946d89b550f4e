/**
 * What the box office does to an order (docs/console.md, "Order"): settle an unpaid order
 * and resend its e-tickets (`sell`); refund all or chosen tickets, cancel the order and
 * transfer a ticket (`refund`). Only the actions the role holds are shown (the API refuses
 * the others anyway, 403 `role_forbidden`). Refund, cancel and transfer say what they will
 * do and ask once (./confirm-action.tsx); settle and refund carry an Idempotency-Key that a
 * retry of the same request reuses, and every button is disabled while a request is in
 * flight, so a double click does nothing twice. Each action reports what happened in words
 * (`onDone`), after which the screen shows the order as it is now; a refusal goes to
 * `onError` with the API's detail.
 */
import { useRef, useState } from 'preact/hooks';
import type { EventDetail, OrderDetail, Ticket } from '@marquee/sdk';
import { answer, dashboard } from '../lib/dashboard.ts';
import { money } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { ConfirmAction } from './confirm-action.tsx';
import type { OrderContext } from './order-view.tsx';

type Tender = 'cash' | 'card' | 'bank_transfer';
type RefundMode = 'cash' | 'card';

const TENDERS: ReadonlyArray<{ value: Tender; label: string }> = [
  { value: 'cash', label: 'Cash' },
  { value: 'card', label: 'Card' },
  { value: 'bank_transfer', label: 'Bank transfer' },
];

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const holderName = (t: Ticket) => `${t.holder.first_name}${t.holder.last_name ? ` ${t.holder.last_name}` : ''}`;

/** "Ticket 1042-001 · Standard · Ada Lovelace · €35.00" */
function ticketLine(ticket: Ticket, events: Record<string, EventDetail>, currency: string): string {
  const type = events[ticket.performance_id]?.ticket_types.find((t) => t.id === ticket.ticket_type_id);
  return `Ticket ${ticket.ticket_no} · ${type?.name ?? 'Ticket'} · ${holderName(ticket)} · ${
    ticket.is_free ? 'Free' : money(ticket.total_minor, currency)
  }`;
}

/** One Idempotency-Key per request: the same request again (a retry) reuses it, another one gets a new key. */
function useIdempotencyKeys(): (request: string) => string {
  const last = useRef<{ request: string; key: string } | undefined>(undefined);
  return (request) => {
    if (last.current?.request !== request) last.current = { request, key: crypto.randomUUID() };
    return last.current.key;
  };
}

export function OrderActions({
  order,
  context,
  onDone,
  onError,
}: {
  order: OrderDetail;
  context: OrderContext;
  /** Called with what happened, in words, once the action succeeded. */
  onDone: (message: string) => void | Promise<void>;
  onError: (error: unknown) => void;
}) {
  const { can } = useSession();
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const keyFor = useIdempotencyKeys();
  const tickets = order.transactions.flatMap((t) => t.items ?? []);
  const purchased = tickets.filter((t) => t.status === 'purchased');

  /** Runs one action at a time: a second click while one is in flight does nothing. */
  const run = async (work: () => Promise<string>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    onError(undefined);
    try {
      await onDone(await work());
    } catch (err) {
      onError(err);
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };

  const canSell = can('sell');
  const canRefund = can('refund');
  const settleable = canSell && order.status === 'unpaid';
  // The API sends e-tickets of a paid order that still has one that admits (docs/dashboard.md).
  const resendable =
    canSell &&
    (order.status === 'placed' || order.status === 'fulfilled') &&
    tickets.some((t) => t.status === 'purchased' || t.status === 'checked_in');
  const refundable = canRefund && (order.status === 'placed' || order.status === 'fulfilled') && purchased.length > 0;
  const cancellable = canRefund && order.status !== 'cancelled';
  const transferable = canRefund && order.status !== 'cancelled' && purchased.length > 0;
  if (!settleable && !resendable && !refundable && !cancellable && !transferable) return null;

  return (
    <section aria-labelledby="order-actions-heading" class="order-actions">
      <h2 id="order-actions-heading">Actions</h2>
      {settleable && <SettleAction order={order} busy={busy} run={run} keyFor={keyFor} />}
      {resendable && <ResendAction order={order} busy={busy} run={run} />}
      {refundable && (
        <RefundAction order={order} tickets={purchased} context={context} busy={busy} run={run} keyFor={keyFor} />
      )}
      {transferable && <TransferAction tickets={purchased} busy={busy} run={run} />}
      {cancellable && <CancelAction order={order} tickets={purchased} busy={busy} run={run} />}
    </section>
  );
}

interface ActionProps {
  busy: boolean;
  run: (work: () => Promise<string>) => Promise<void>;
}

function SettleAction({
  order,
  busy,
  run,
  keyFor,
}: ActionProps & { order: OrderDetail; keyFor: (r: string) => string }) {
  const [tender, setTender] = useState<Tender>('cash');
  const settle = () =>
    run(async () => {
      const key = keyFor(`settle ${order.id} ${tender}`);
      await answer(
        dashboard.POST('/dashboard/v1/orders/{id}/settle', {
          params: { path: { id: order.id }, header: { 'idempotency-key': key } },
          body: { tender },
        }),
      );
      const label = TENDERS.find((t) => t.value === tender)!.label.toLowerCase();
      return `Order ${order.order_no} settled: ${money(order.total_minor, order.currency)} paid by ${label}. It is placed.`;
    });
  return (
    <div class="action" role="group" aria-labelledby="settle-heading">
      <h3 id="settle-heading">Settle</h3>
      <p class="hint">The buyer pays {money(order.total_minor, order.currency)} now; the order becomes placed.</p>
      <div class="row">
        <div class="field">
          <label for="settle-tender">Paid by</label>
          <select id="settle-tender" value={tender} onChange={(e) => setTender(e.currentTarget.value as Tender)}>
            {TENDERS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <button type="button" disabled={busy} onClick={() => void settle()}>
        Settle order
      </button>
    </div>
  );
}

function ResendAction({ order, busy, run }: ActionProps & { order: OrderDetail }) {
  const [to, setTo] = useState('');
  const resend = () =>
    run(async () => {
      const address = to.trim();
      const email = await answer(
        dashboard.POST('/dashboard/v1/orders/{id}/resend_tickets', {
          params: { path: { id: order.id } },
          body: address === '' ? {} : { email: address },
        }),
      );
      return `The e-tickets of order ${order.order_no} are on their way to ${email.recipient}.`;
    });
  return (
    <div class="action" role="group" aria-labelledby="resend-heading">
      <h3 id="resend-heading">E-tickets</h3>
      <div class="field">
        <label for="resend-to">Send to (optional)</label>
        <input
          id="resend-to"
          type="email"
          autocomplete="off"
          maxLength={254}
          value={to}
          aria-describedby="resend-to-hint"
          onInput={(e) => setTo(e.currentTarget.value)}
        />
        <p class="hint" id="resend-to-hint">
          Empty: the buyer's address, {order.buyer.email}.
        </p>
      </div>
      <button type="button" class="secondary" disabled={busy} onClick={() => void resend()}>
        Resend e-tickets
      </button>
    </div>
  );
}

function RefundAction({
  order,
  tickets,
  context,
  busy,
  run,
  keyFor,
}: ActionProps & { order: OrderDetail; tickets: Ticket[]; context: OrderContext; keyFor: (r: string) => string }) {
  const [chosen, setChosen] = useState<string[]>(() => tickets.map((t) => t.id));
  const [mode, setMode] = useState<RefundMode>('cash');
  const picked = tickets.filter((t) => chosen.includes(t.id));
  const amount = picked.reduce((sum, t) => sum + t.total_minor, 0);
  const back = money(amount, order.currency);
  const count = plural(picked.length, 'ticket');
  const how = mode === 'cash' ? 'back in cash now' : 'back to the card (pending until the card refund is settled)';
  const refund = () =>
    run(async () => {
      const ticketIds = picked.map((t) => t.id);
      const key = keyFor(`refund ${order.id} ${mode} ${ticketIds.join(',')}`);
      const done = await answer(
        dashboard.POST('/dashboard/v1/orders/{id}/refund', {
          params: { path: { id: order.id }, header: { 'idempotency-key': key } },
          body: { ticket_ids: ticketIds, mode },
        }),
      );
      const refunded = plural(done.ticket_ids.length, 'ticket');
      return done.status === 'pending'
        ? `Refunded ${refunded} of order ${order.order_no}: ${money(done.amount_minor, done.currency)} to the card, pending until it is settled.`
        : `Refunded ${refunded} of order ${order.order_no}: ${money(done.amount_minor, done.currency)} back in cash.`;
    });
  return (
    <div class="action" role="group" aria-labelledby="refund-heading">
      <h3 id="refund-heading">Refund</h3>
      <fieldset>
        <legend>Tickets to refund</legend>
        {tickets.map((t) => (
          <div key={t.id}>
            <label class="check">
              <input
                type="checkbox"
                checked={chosen.includes(t.id)}
                onChange={(e) =>
                  setChosen(e.currentTarget.checked ? [...chosen, t.id] : chosen.filter((id) => id !== t.id))
                }
              />{' '}
              {ticketLine(t, context.events, order.currency)}
            </label>
          </div>
        ))}
      </fieldset>
      <div class="row">
        <div class="field">
          <label for="refund-mode">Money back</label>
          <select id="refund-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as RefundMode)}>
            <option value="cash">Cash, now</option>
            <option value="card">To the card (settled later)</option>
          </select>
        </div>
      </div>
      <ConfirmAction
        label={picked.length === tickets.length && picked.length > 1 ? `Refund all ${count}` : `Refund ${count}`}
        confirmLabel={`Yes, refund ${count}`}
        consequence={`Refund ${count}, ${back} ${how}. Their seats return to sale; the tickets no longer admit.`}
        disabled={picked.length === 0}
        busy={busy}
        onConfirm={refund}
      />
      {picked.length === 0 && <p class="hint">Choose at least one ticket.</p>}
    </div>
  );
}

function CancelAction({ order, tickets, busy, run }: ActionProps & { order: OrderDetail; tickets: Ticket[] }) {
  const cancel = () =>
    run(async () => {
      const cancelled = await answer(
        dashboard.POST('/dashboard/v1/orders/{id}/cancel', { params: { path: { id: order.id } } }),
      );
      const n = cancelled.transactions.flatMap((t) => t.items ?? []).filter((t) => t.status === 'cancelled').length;
      return `Order ${order.order_no} cancelled: ${plural(n, 'ticket')} cancelled, their seats back on sale.`;
    });
  const seats =
    tickets.length === 0
      ? `Cancel order ${order.order_no}.`
      : `Cancel order ${order.order_no}: its ${plural(tickets.length, 'valid ticket')} stop admitting and their seats return to sale.`;
  const refundNote =
    order.status === 'unpaid' ? '' : ' No money is refunded by cancelling: refund the tickets first if it goes back.';
  return (
    <div class="action" role="group" aria-labelledby="cancel-heading">
      <h3 id="cancel-heading">Cancel</h3>
      <ConfirmAction
        label="Cancel order"
        confirmLabel={`Yes, cancel order ${order.order_no}`}
        consequence={`${seats}${refundNote} This cannot be undone.`}
        busy={busy}
        onConfirm={cancel}
      />
    </div>
  );
}

function TransferAction({ tickets, busy, run }: ActionProps & { tickets: Ticket[] }) {
  const [ticketId, setTicketId] = useState(tickets[0]!.id);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [email, setEmail] = useState('');
  const ticket = tickets.find((t) => t.id === ticketId) ?? tickets[0]!;
  const newHolder = `${firstName.trim()}${lastName.trim() !== '' ? ` ${lastName.trim()}` : ''}`;
  const ready = firstName.trim() !== '' && /^[^\s@]+@[^\s@]+$/.test(email.trim());
  const transfer = () =>
    run(async () => {
      const moved = await answer(
        dashboard.POST('/dashboard/v1/tickets/{id}/transfer', {
          params: { path: { id: ticket.id } },
          body: {
            first_name: firstName.trim(),
            ...(lastName.trim() !== '' ? { last_name: lastName.trim() } : {}),
            email: email.trim(),
          },
        }),
      );
      return `Ticket ${moved.ticket_no} now belongs to ${holderName(moved)} (${moved.holder.email}).`;
    });
  return (
    <form
      class="action"
      aria-labelledby="transfer-heading"
      onSubmit={(e) => {
        e.preventDefault();
      }}
    >
      <h3 id="transfer-heading">Transfer a ticket</h3>
      <div class="field">
        <label for="transfer-ticket">Ticket</label>
        <select id="transfer-ticket" value={ticket.id} onChange={(e) => setTicketId(e.currentTarget.value)}>
          {tickets.map((t) => (
            <option key={t.id} value={t.id}>
              {t.ticket_no} · {holderName(t)}
            </option>
          ))}
        </select>
      </div>
      <div class="row">
        <div class="field">
          <label for="transfer-first-name">New holder's first name</label>
          <input
            id="transfer-first-name"
            autocomplete="off"
            required
            maxLength={100}
            value={firstName}
            onInput={(e) => setFirstName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="transfer-last-name">Last name (optional)</label>
          <input
            id="transfer-last-name"
            autocomplete="off"
            maxLength={100}
            value={lastName}
            onInput={(e) => setLastName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="transfer-email">E-mail</label>
          <input
            id="transfer-email"
            type="email"
            autocomplete="off"
            required
            maxLength={254}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
      </div>
      <ConfirmAction
        label="Transfer ticket"
        confirmLabel={`Yes, transfer ticket ${ticket.ticket_no}`}
        consequence={`Ticket ${ticket.ticket_no} goes to ${newHolder} (${email.trim()}): the same QR code now admits them, no longer ${holderName(ticket)}.`}
        disabled={!ready}
        busy={busy}
        onConfirm={transfer}
      />
      {!ready && <p class="hint">Type the new holder's first name and e-mail address first.</p>}
    </form>
  );
}
