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
import {
  blankPerformance,
  PERFORMANCE_PATHS,
  PerformanceRows,
  type PerformanceDraft,
} from '../components/performance-rows.tsx';
import {
  blankTicketType,
  TICKET_TYPE_PATHS,
  TicketTypeRows,
  ticketTypeItems,
  type TicketTypeDraft,
} from '../components/ticket-type-rows.tsx';
import { zonedInputToIso } from '../lib/format.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';

const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());
const integer = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** The fields of this form, by the API's paths; any other `param` is shown as a general error. */
const FIELD_PATHS = new RegExp(
  `^(title|description|timezone|venue(\\.name)?|category_name|${PERFORMANCE_PATHS}|${TICKET_TYPE_PATHS})$`,
);

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

  const toIso = (local: string) => {
    try {
      return zonedInputToIso(local, timezone);
    } catch {
      return undefined; // an unknown time zone: the API names it
    }
  };

  const body = (): CreateEventRequest | undefined => {
    const items = ticketTypeItems(ticketTypes, currency, errors);
    if (items === undefined) return undefined;
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
      ticket_types: items,
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
          <PerformanceRows
            drafts={performances}
            onChange={setPerformances}
            errors={errors}
            noun="Performance"
            titleLabel="Title (optional)"
            addLabel="Add a performance"
          />
        </fieldset>

        <fieldset>
          <legend>Ticket types (priced on every performance, in {currency})</legend>
          <TicketTypeRows
            drafts={ticketTypes}
            onChange={setTicketTypes}
            errors={errors}
            currency={currency}
            noun="Ticket type"
            descriptionLabel="Description (optional)"
            addLabel="Add a ticket type"
          />
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
