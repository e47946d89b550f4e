/**
 * Hold allocations per performance (docs/dashboard.md, "Box office and catalog operations"): seats kept off
 * sale (guests, press, a group) until released. Each performance is a disclosure; opened,
 * it lists the active holds (GET /dashboard/v1/performances/{id}/holds) beside the
 * performance's availability, both read again after every change and every few seconds
 * while it is open and the page visible (closing it, or leaving the page, stops that).
 * With `catalog`: hold seats (any ticket type, or one) and release a hold after a
 * confirming second click; others see the list only.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Availability, EventDetail, Performance } from '@marquee/sdk';
import { ConfirmAction } from './confirm-action.tsx';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import { performanceName } from './performance-picker.tsx';
import { createHold, listHolds, releaseHold, useRequestKey, type Hold } from '../lib/catalog.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { dateTime } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { usePolling } from '../lib/use-async.ts';
import { ActionsCol, NumCol } from './table-headers.tsx';

/** How often an open panel reads its holds and availability again. */
const HOLDS_REFRESH_MS = 3000;

export function HoldsPanel({ event, performances }: { event: EventDetail; performances: Performance[] }) {
  return (
    <section aria-labelledby="holds-heading">
      <h2 id="holds-heading">Holds</h2>
      <p class="hint">
        A hold allocation keeps seats off sale until it is released: they leave what remains at once and come back when
        released. Open a performance to see its holds.
      </p>
      {performances.map((performance) => (
        <PerformanceDisclosure key={performance.id} event={event} performance={performance} />
      ))}
    </section>
  );
}

function PerformanceDisclosure({ event, performance }: { event: EventDetail; performance: Performance }) {
  const [open, setOpen] = useState(false);
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)} data-performance={performance.id}>
      <summary>Holds of {performanceName(performance, event.timezone)}</summary>
      {/* Mounted only while open: the polling lives and ends with it. */}
      {open && <PerformanceHolds event={event} performance={performance} />}
    </details>
  );
}

interface HoldsState {
  holds: Hold[];
  hasMore: boolean;
  availability: Availability;
}

function PerformanceHolds({ event, performance }: { event: EventDetail; performance: Performance }) {
  const { client, can } = useSession();
  const [state, setState] = useState<HoldsState | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [releasing, setReleasing] = useState<string | undefined>();
  const [releaseError, setReleaseError] = useState<unknown>();
  // After a release its row is gone: the keyboard focus goes to the sentence that says so.
  const statusLine = useRef<HTMLParagraphElement>(null);
  // Only the newest read is shown: a poll sent before a change may answer after it.
  const generation = useRef(0);
  const refresh = useCallback(() => {
    const mine = ++generation.current;
    Promise.all([listHolds(performance.id), client.performances.availability(performance.id)]).then(
      ([holds, availability]) => {
        if (mine !== generation.current) return;
        setState({ holds: holds.data, hasMore: holds.has_more, availability });
        setError(undefined);
      },
      (err: unknown) => mine === generation.current && setError(err),
    );
  }, [client, performance.id]);
  useEffect(() => {
    refresh();
    return () => {
      generation.current++;
    };
  }, [refresh]);
  usePolling(refresh, HOLDS_REFRESH_MS);

  const typeName = (id: string | null) =>
    id === null ? 'Any ticket type' : (event.ticket_types.find((t) => t.id === id)?.name ?? id);
  const editable = can('catalog');

  const release = async (hold: Hold) => {
    setReleasing(hold.id);
    setReleaseError(undefined);
    setStatus('');
    try {
      await releaseHold(hold.id);
      setStatus(`Released ${seats(hold.quantity)}: back on sale.`);
      statusLine.current?.focus();
    } catch (err) {
      setReleaseError(err);
    } finally {
      setReleasing(undefined);
      refresh();
    }
  };

  const name = performanceName(performance, event.timezone);
  return (
    <div class="holds">
      <ErrorNotice error={error} />
      {state === undefined ? (
        error === undefined && <p class="loading">Loading the holds…</p>
      ) : (
        <>
          <p>
            Remaining: <strong data-testid="holds-remaining">{state.availability.performance_remaining}</strong> of{' '}
            {performance.capacity}; held: <span data-testid="holds-held">{held(state.holds)}</span>.{' '}
            <span class="hint">Read again every few seconds.</span>
          </p>
          <table aria-label={`Remaining per ticket type, ${name}`}>
            <thead>
              <tr>
                <th scope="col">Ticket type</th>
                <NumCol>Remaining</NumCol>
              </tr>
            </thead>
            <tbody>
              {state.availability.ticket_types.map((t) => (
                <tr key={t.ticket_type_id}>
                  <th scope="row">{typeName(t.ticket_type_id)}</th>
                  <td class="num">{t.remaining}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {state.holds.length === 0 ? (
            <p>No active holds.</p>
          ) : (
            <table aria-label={`Active holds, ${name}`}>
              <thead>
                <tr>
                  <th scope="col">Held since</th>
                  <NumCol>Seats</NumCol>
                  <th scope="col">Ticket type</th>
                  {editable && <ActionsCol />}
                </tr>
              </thead>
              <tbody>
                {state.holds.map((hold) => (
                  <tr key={hold.id} data-hold={hold.id}>
                    <td>{dateTime(hold.created_at, event.timezone)}</td>
                    <td class="num">{hold.quantity}</td>
                    <td>{typeName(hold.ticket_type_id)}</td>
                    {editable && (
                      <td>
                        <ConfirmAction
                          label="Release"
                          ariaLabel={`Release the hold of ${seats(hold.quantity)} (${typeName(hold.ticket_type_id)})`}
                          confirmLabel={`Yes, release ${seats(hold.quantity)}`}
                          consequence={`The ${seats(hold.quantity)} go back on sale at once.`}
                          busy={releasing === hold.id}
                          onConfirm={() => release(hold)}
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {state.hasMore && <p class="hint">The newest 100 holds are shown.</p>}
        </>
      )}
      <ErrorNotice error={releaseError} />
      <p role="status" ref={statusLine} tabIndex={-1}>
        {status}
      </p>
      {editable && (
        <NewHoldForm
          event={event}
          performance={performance}
          available={state?.availability}
          onHeld={(hold) => {
            setStatus(`Held ${seats(hold.quantity)} (${typeName(hold.ticket_type_id)}).`);
            refresh();
          }}
        />
      )}
    </div>
  );
}

const seats = (n: number) => (n === 1 ? '1 seat' : `${n} seats`);
const held = (holds: Hold[]) => holds.reduce((sum, h) => sum + h.quantity, 0);

function NewHoldForm({
  event,
  performance,
  available,
  onHeld,
}: {
  event: EventDetail;
  performance: Performance;
  available: Availability | undefined;
  onHeld: (hold: Hold) => void;
}) {
  const [quantity, setQuantity] = useState('');
  const [ticketType, setTicketType] = useState('');
  const [busy, setBusy] = useState(false);
  const requestKey = useRequestKey();
  // Field paths are per performance: several panels may be open on the page at once.
  const prefix = `hold-${performance.id}`;
  const errors = useFormErrors((param) =>
    param === 'quantity' || param === 'ticket_type_id' ? `${prefix}.${param}` : undefined,
  );
  // The types on sale at this performance (the ones with a price here).
  const types = event.ticket_types.filter((t) =>
    available === undefined
      ? t.prices.some((p) => p.performance_id === performance.id)
      : available.ticket_types.some((a) => a.ticket_type_id === t.id),
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    const body = {
      quantity: quantity.trim() === '' ? Number.NaN : Number(quantity),
      ...(ticketType !== '' ? { ticket_type_id: ticketType } : {}),
    };
    setBusy(true);
    try {
      const hold = await createHold(performance.id, body, requestKey.keyFor({ performance: performance.id, body }));
      requestKey.reset();
      setQuantity('');
      onHeld(hold);
    } catch (err) {
      errors.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-label={`Hold seats, ${performanceName(performance, event.timezone)}`}
    >
      <div class="row">
        <Field id={fieldId(`${prefix}.quantity`)} label="Seats to hold" error={errors.of(`${prefix}.quantity`)}>
          {(a) => (
            <input
              {...a}
              type="number"
              inputMode="numeric"
              min={1}
              value={quantity}
              onInput={(e) => setQuantity(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id={fieldId(`${prefix}.ticket_type_id`)}
          label="Of ticket type"
          error={errors.of(`${prefix}.ticket_type_id`)}
        >
          {(a) => (
            <select {...a} value={ticketType} onChange={(e) => setTicketType(e.currentTarget.value)}>
              <option value="">Any ticket type</option>
              {types.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Hold seats" busy={busy} busyLabel="Holding…" />
    </form>
  );
}
