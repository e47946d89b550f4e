/**
 * Adding ticket types to an existing event (POST /dashboard/v1/events/{id}/ticket_types,
 * docs/dashboard.md, "Box office and catalog operations"): name, optional description, the price typed in
 * the organizer's currency and sent in minor units, and an optional cap per performance.
 * Each new type is priced on every performance. The answer is the event again, which the
 * screen shows; a refusal's detail is shown beside the field its `param` names.
 */
import { useState } from 'preact/hooks';
import type { EventDetail } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import { addTicketTypes, useRequestKey, type TicketTypeItem } from '../lib/catalog.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { minorDigits, parseMoney } from '../lib/format.ts';

interface TicketTypeDraft {
  name: string;
  description: string;
  price: string;
  quantity: string;
}

const blank = (): TicketTypeDraft => ({ name: '', description: '', price: '', quantity: '' });

const FIELD_PATHS = /^ticket_types(\.\d+\.(name|description|price_minor|quantity))?$/;

export function AddTicketTypes({
  event,
  currency,
  onAdded,
}: {
  event: EventDetail;
  /** The organizer's currency: the catalog's prices are in it (docs/console.md, "Money and dates"). */
  currency: string;
  onAdded: (event: EventDetail) => void;
}) {
  const [drafts, setDrafts] = useState<TicketTypeDraft[]>([blank()]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const requestKey = useRequestKey();
  const errors = useFormErrors((param) => (FIELD_PATHS.test(param) ? param : undefined));

  const change = (i: number, patch: Partial<TicketTypeDraft>) =>
    setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));

  const body = (): TicketTypeItem[] | undefined => {
    const items: TicketTypeItem[] = [];
    for (const [i, d] of drafts.entries()) {
      const price = parseMoney(d.price, currency);
      if (price === undefined) {
        errors.failField(
          `ticket_types.${i}.price_minor`,
          minorDigits(currency) === 0
            ? `Enter the price in ${currency} as a whole number, e.g. 1500.`
            : `Enter the price in ${currency}, e.g. 12.50.`,
        );
        return undefined;
      }
      items.push({
        name: d.name.trim(),
        ...(d.description.trim() !== '' ? { description: d.description.trim() } : {}),
        price_minor: price,
        quantity: d.quantity.trim() === '' ? null : Number(d.quantity),
      });
    }
    return items;
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    setStatus('');
    const ticketTypes = body();
    if (ticketTypes === undefined) return;
    setBusy(true);
    try {
      const updated = await addTicketTypes(event.id, ticketTypes, requestKey.keyFor(ticketTypes));
      requestKey.reset();
      setDrafts([blank()]);
      setStatus(
        ticketTypes.length === 1 ? 'The ticket type was added.' : `${ticketTypes.length} ticket types were added.`,
      );
      onAdded(updated);
    } catch (err) {
      errors.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="add-ticket-types-heading">
      <h2 id="add-ticket-types-heading">Add ticket types</h2>
      <p class="hint">Each new ticket type is priced on every performance, in {currency}.</p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        {errors.of('ticket_types') !== undefined && <p class="field-error">{errors.of('ticket_types')}</p>}
        {drafts.map((d, i) => (
          <div class="row" key={i} role="group" aria-label={`New ticket type ${i + 1}`}>
            <Field
              id={fieldId(`ticket_types.${i}.name`)}
              label={`New ticket type ${i + 1} name`}
              error={errors.of(`ticket_types.${i}.name`)}
            >
              {(a) => <input {...a} value={d.name} onInput={(e) => change(i, { name: e.currentTarget.value })} />}
            </Field>
            <Field
              id={fieldId(`ticket_types.${i}.price_minor`)}
              label={`Price (${currency})`}
              error={errors.of(`ticket_types.${i}.price_minor`)}
            >
              {(a) => (
                <input
                  {...a}
                  inputMode="decimal"
                  value={d.price}
                  onInput={(e) => change(i, { price: e.currentTarget.value })}
                />
              )}
            </Field>
            <Field
              id={fieldId(`ticket_types.${i}.quantity`)}
              label="Cap per performance (optional)"
              error={errors.of(`ticket_types.${i}.quantity`)}
            >
              {(a) => (
                <input
                  {...a}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  value={d.quantity}
                  onInput={(e) => change(i, { quantity: e.currentTarget.value })}
                />
              )}
            </Field>
            <Field
              id={fieldId(`ticket_types.${i}.description`)}
              label="Ticket type description (optional)"
              error={errors.of(`ticket_types.${i}.description`)}
            >
              {(a) => (
                <input
                  {...a}
                  value={d.description}
                  onInput={(e) => change(i, { description: e.currentTarget.value })}
                />
              )}
            </Field>
            {drafts.length > 1 && (
              <button type="button" class="secondary" onClick={() => setDrafts(drafts.filter((_, j) => j !== i))}>
                Remove new ticket type {i + 1}
              </button>
            )}
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => setDrafts([...drafts, blank()])}>
          One more ticket type
        </button>
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Add ticket types" busy={busy} busyLabel="Adding…">
          <span role="status">{status}</span>
        </SubmitActions>
      </form>
    </section>
  );
}
