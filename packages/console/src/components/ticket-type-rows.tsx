/**
 * The ticket-type rows of a catalog form (the new event's form and "Add ticket types",
 * docs/console.md): name, price typed in the organizer's currency, optional cap per
 * performance and description; a row added or removed; the rows as the API's body, the
 * price in minor units; each refusal's detail beside the field its `param` names.
 */
import { Field } from './field.tsx';
import type { TicketTypeItem } from '../lib/catalog.ts';
import { fieldId, type useFormErrors } from '../lib/form-errors.ts';
import { minorDigits, parseMoney } from '../lib/format.ts';

export interface TicketTypeDraft {
  name: string;
  description: string;
  price: string;
  quantity: string;
}

type Errors = Pick<ReturnType<typeof useFormErrors>, 'of' | 'failField'>;

export const blankTicketType = (): TicketTypeDraft => ({ name: '', description: '', price: '', quantity: '' });

/** The API paths of the rows' fields. */
export const TICKET_TYPE_PATHS = 'ticket_types(\\.\\d+\\.(name|description|price_minor|quantity))?';

/** The rows as the API's items; undefined (the field's error set) when a price is not one. */
export function ticketTypeItems(drafts: TicketTypeDraft[], currency: string, errors: Errors) {
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
}

export function TicketTypeRows({
  drafts,
  onChange,
  errors,
  currency,
  noun,
  descriptionLabel,
  addLabel,
  capMin,
}: {
  drafts: TicketTypeDraft[];
  onChange: (drafts: TicketTypeDraft[]) => void;
  errors: Errors;
  currency: string;
  /** "Ticket type" or "New ticket type": names each row ("Ticket type 2") and its buttons. */
  noun: string;
  descriptionLabel: string;
  /** The text of the button that adds a row. */
  addLabel: string;
  /** The smallest cap the number field offers, if any. */
  capMin?: number;
}) {
  const change = (i: number, patch: Partial<TicketTypeDraft>) =>
    onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <>
      {errors.of('ticket_types') !== undefined && <p class="field-error">{errors.of('ticket_types')}</p>}
      {drafts.map((d, i) => (
        <div class="row" key={i} role="group" aria-label={`${noun} ${i + 1}`}>
          <Field
            id={fieldId(`ticket_types.${i}.name`)}
            label={`${noun} ${i + 1} name`}
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
                min={capMin}
                value={d.quantity}
                onInput={(e) => change(i, { quantity: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field
            id={fieldId(`ticket_types.${i}.description`)}
            label={descriptionLabel}
            error={errors.of(`ticket_types.${i}.description`)}
          >
            {(a) => (
              <input {...a} value={d.description} onInput={(e) => change(i, { description: e.currentTarget.value })} />
            )}
          </Field>
          {drafts.length > 1 && (
            <button type="button" class="secondary" onClick={() => onChange(drafts.filter((_, j) => j !== i))}>
              Remove {noun.toLowerCase()} {i + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => onChange([...drafts, blankTicketType()])}>
        {addLabel}
      </button>
    </>
  );
}
