/**
 * A new event in one form: venue, performances and ticket types (POST /v1/events, one
 * transaction). Rules are the API's: the form sends what was typed and shows each
 * refusal's detail beside the field it names (docs/catalog.md, "POST /v1/events").
 * Times are typed in the event's time zone; prices in the organizer's currency.
 */
import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { CreateEventRequest } from '@marquee/sdk';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { minorDigits, parseMoney, zonedInputToIso } from '../lib/format.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';

interface PerformanceDraft {
  starts: string;
  ends: string;
  capacity: string;
  title: string;
}
interface TicketTypeDraft {
  name: string;
  description: string;
  price: string;
  quantity: string;
}

const blankPerformance = (): PerformanceDraft => ({ starts: '', ends: '', capacity: '', title: '' });
const blankTicketType = (): TicketTypeDraft => ({ name: '', description: '', price: '', quantity: '' });
const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());
const integer = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** The fields of this form, by the API's paths; any other `param` is shown as a general error. */
const FIELD_PATHS =
  /^(title|description|timezone|venue(\.name)?|category_name|performances(\.\d+\.(starts_at|ends_at|capacity|title))?|ticket_types(\.\d+\.(name|description|price_minor|quantity))?)$/;

export function EventCreate() {
  useTitle('New event');
  const { client, organizer } = useSession();
  const { route } = useLocation();
  const currency = organizer.currency;
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [timezone, setTimezone] = useState(organizer.timezone);
  const [venue, setVenue] = useState('');
  const [online, setOnline] = useState(false);
  const [category, setCategory] = useState('');
  const [publish, setPublish] = useState(true);
  const [performances, setPerformances] = useState<PerformanceDraft[]>([blankPerformance()]);
  const [ticketTypes, setTicketTypes] = useState<TicketTypeDraft[]>([blankTicketType()]);
  const [busy, setBusy] = useState(false);
  // One key per form: a second submit of the same request replays rather than duplicates.
  const idempotency = useRef<{ key: string; body: string } | undefined>(undefined);
  const errors = useFormErrors((param) => (FIELD_PATHS.test(param) ? param : undefined));

  const setPerformance = (i: number, change: Partial<PerformanceDraft>) =>
    setPerformances(performances.map((p, j) => (j === i ? { ...p, ...change } : p)));
  const setTicketType = (i: number, change: Partial<TicketTypeDraft>) =>
    setTicketTypes(ticketTypes.map((t, j) => (j === i ? { ...t, ...change } : t)));

  const toIso = (local: string) => {
    try {
      return zonedInputToIso(local, timezone);
    } catch {
      return undefined; // an unknown time zone: the API names it
    }
  };

  const body = (): CreateEventRequest | undefined => {
    const prices: number[] = [];
    for (const [i, t] of ticketTypes.entries()) {
      const price = parseMoney(t.price, currency);
      if (price === undefined) {
        errors.failField(
          `ticket_types.${i}.price_minor`,
          minorDigits(currency) === 0
            ? `Enter the price in ${currency} as a whole number, e.g. 1500.`
            : `Enter the price in ${currency}, e.g. 12.50.`,
        );
        return undefined;
      }
      prices.push(price);
    }
    return {
      title,
      ...(optional(description) !== undefined ? { description } : {}),
      timezone: optional(timezone) ?? null,
      venue: online ? 'online' : { name: venue.trim() },
      ...(optional(category) !== undefined ? { category_name: category.trim() } : {}),
      publish,
      performances: performances.map((p) => ({
        starts_at: toIso(p.starts) as string,
        ...(p.ends.trim() !== '' ? { ends_at: toIso(p.ends) ?? p.ends } : {}),
        capacity: integer(p.capacity) as number,
        ...(optional(p.title) !== undefined ? { title: p.title.trim() } : {}),
      })),
      ticket_types: ticketTypes.map((t, i) => ({
        name: t.name.trim(),
        ...(optional(t.description) !== undefined ? { description: t.description.trim() } : {}),
        price_minor: prices[i]!,
        quantity: integer(t.quantity) ?? null,
      })),
    };
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    const request = body();
    if (request === undefined) return;
    const text = JSON.stringify(request);
    if (idempotency.current?.body !== text) idempotency.current = { key: crypto.randomUUID(), body: text };
    setBusy(true);
    try {
      const event = await client.events.create(request, { idempotencyKey: idempotency.current.key });
      route(`/app/events/${event.id}`);
    } catch (err) {
      errors.fail(err);
      setBusy(false);
    }
  };

  return (
    <>
      <h1>New event</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <fieldset>
          <legend>Event</legend>
          <Field id={fieldId('title')} label="Title" error={errors.of('title')}>
            {(a) => <input {...a} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
          </Field>
          <Field
            id={fieldId('description')}
            label="Description"
            hint="HTML allowed; it is sanitized"
            error={errors.of('description')}
          >
            {(a) => (
              <textarea {...a} rows={3} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
            )}
          </Field>
          <Field
            id={fieldId('timezone')}
            label="Time zone"
            hint="The performances' times below are in this zone"
            error={errors.of('timezone')}
          >
            {(a) => (
              <>
                <input {...a} list="time-zones" value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />
                <datalist id="time-zones">
                  {Intl.supportedValuesOf('timeZone').map((zone) => (
                    <option key={zone} value={zone} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <div class="row">
            <Field id={fieldId('venue.name')} label="Venue" error={errors.of('venue.name') ?? errors.of('venue')}>
              {(a) => <input {...a} disabled={online} value={venue} onInput={(e) => setVenue(e.currentTarget.value)} />}
            </Field>
            <label class="check">
              <input type="checkbox" checked={online} onChange={(e) => setOnline(e.currentTarget.checked)} /> Online
              event
            </label>
          </div>
          <Field id={fieldId('category_name')} label="Category (optional)" error={errors.of('category_name')}>
            {(a) => <input {...a} value={category} onInput={(e) => setCategory(e.currentTarget.value)} />}
          </Field>
          <label class="check">
            <input type="checkbox" checked={publish} onChange={(e) => setPublish(e.currentTarget.checked)} /> Publish
            now (unchecked: a draft, not on sale)
          </label>
        </fieldset>

        <fieldset>
          <legend>Performances</legend>
          {errors.of('performances') !== undefined && <p class="field-error">{errors.of('performances')}</p>}
          {performances.map((p, i) => (
            <div class="row" key={i} role="group" aria-label={`Performance ${i + 1}`}>
              <Field
                id={fieldId(`performances.${i}.starts_at`)}
                label={`Performance ${i + 1} starts`}
                error={errors.of(`performances.${i}.starts_at`)}
              >
                {(a) => (
                  <input
                    {...a}
                    type="datetime-local"
                    value={p.starts}
                    onInput={(e) => setPerformance(i, { starts: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field
                id={fieldId(`performances.${i}.ends_at`)}
                label="Ends (optional)"
                error={errors.of(`performances.${i}.ends_at`)}
              >
                {(a) => (
                  <input
                    {...a}
                    type="datetime-local"
                    value={p.ends}
                    onInput={(e) => setPerformance(i, { ends: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field
                id={fieldId(`performances.${i}.capacity`)}
                label="Capacity"
                error={errors.of(`performances.${i}.capacity`)}
              >
                {(a) => (
                  <input
                    {...a}
                    type="number"
                    inputMode="numeric"
                    value={p.capacity}
                    onInput={(e) => setPerformance(i, { capacity: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field
                id={fieldId(`performances.${i}.title`)}
                label="Title (optional)"
                error={errors.of(`performances.${i}.title`)}
              >
                {(a) => (
                  <input {...a} value={p.title} onInput={(e) => setPerformance(i, { title: e.currentTarget.value })} />
                )}
              </Field>
              {performances.length > 1 && (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setPerformances(performances.filter((_, j) => j !== i))}
                >
                  Remove performance {i + 1}
                </button>
              )}
            </div>
          ))}
          <button
            type="button"
            class="secondary"
            onClick={() => setPerformances([...performances, blankPerformance()])}
          >
            Add a performance
          </button>
        </fieldset>

        <fieldset>
          <legend>Ticket types (priced on every performance, in {currency})</legend>
          {errors.of('ticket_types') !== undefined && <p class="field-error">{errors.of('ticket_types')}</p>}
          {ticketTypes.map((t, i) => (
            <div class="row" key={i} role="group" aria-label={`Ticket type ${i + 1}`}>
              <Field
                id={fieldId(`ticket_types.${i}.name`)}
                label={`Ticket type ${i + 1} name`}
                error={errors.of(`ticket_types.${i}.name`)}
              >
                {(a) => (
                  <input {...a} value={t.name} onInput={(e) => setTicketType(i, { name: e.currentTarget.value })} />
                )}
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
                    value={t.price}
                    onInput={(e) => setTicketType(i, { price: e.currentTarget.value })}
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
                    value={t.quantity}
                    onInput={(e) => setTicketType(i, { quantity: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field
                id={fieldId(`ticket_types.${i}.description`)}
                label="Description (optional)"
                error={errors.of(`ticket_types.${i}.description`)}
              >
                {(a) => (
                  <input
                    {...a}
                    value={t.description}
                    onInput={(e) => setTicketType(i, { description: e.currentTarget.value })}
                  />
                )}
              </Field>
              {ticketTypes.length > 1 && (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setTicketTypes(ticketTypes.filter((_, j) => j !== i))}
                >
                  Remove ticket type {i + 1}
                </button>
              )}
            </div>
          ))}
          <button type="button" class="secondary" onClick={() => setTicketTypes([...ticketTypes, blankTicketType()])}>
            Add a ticket type
          </button>
        </fieldset>
        <ErrorNotice error={errors.general} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create event'}
          </button>
          <a class="button secondary" href="/app/events">
            Cancel
          </a>
        </div>
      </form>
    </>
  );
}
