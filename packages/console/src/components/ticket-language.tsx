/**
 * An event's ticket language (docs/dashboard.md, "Event ticket settings"): what its
 * buyers' e-mails, PDF tickets and wallet passes speak. "Organizer default" follows the
 * organizer's setting (English when it has none); another choice is the event's own. Read
 * with `read`, changed with `catalog` (PATCH .../ticket_settings); a refusal is shown
 * beside the select.
 */
import { useState } from 'preact/hooks';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import {
  getEventTicketSettings,
  languageName,
  TICKET_LANGUAGES,
  updateEventTicketSettings,
  type EventTicketSettings,
} from '../lib/languages.ts';
import { useSession } from '../lib/session.ts';
import { useAsync } from '../lib/use-async.ts';

/** The select's value for "the organizer's default" (the API's null). */
const ORGANIZER_DEFAULT = '';

export function TicketLanguage({ eventId }: { eventId: string }) {
  const { can } = useSession();
  const loaded = useAsync(() => getEventTicketSettings(eventId), [eventId]);
  return (
    <section aria-labelledby="ticket-language-heading">
      <h2 id="ticket-language-heading">Ticket language</h2>
      {loaded.data === undefined ? (
        loaded.error !== undefined ? (
          <ErrorNotice error={loaded.error} />
        ) : (
          <p class="loading">Loading the ticket language…</p>
        )
      ) : can('catalog') ? (
        <TicketLanguageForm key={eventId} eventId={eventId} initial={loaded.data} />
      ) : (
        // A role that may not change it reads it: no form to fill in.
        <p>
          E-mails, PDF tickets and wallet passes of this event are in {languageName(loaded.data.effective_language)}
          {loaded.data.language === null ? ", the organizer's default." : '.'}
        </p>
      )}
    </section>
  );
}

function TicketLanguageForm({ eventId, initial }: { eventId: string; initial: EventTicketSettings }) {
  const [saved, setSaved] = useState(initial);
  const [choice, setChoice] = useState(initial.language ?? ORGANIZER_DEFAULT);
  // The organizer's default is known while the event has none of its own (its effective language).
  const [organizerDefault, setOrganizerDefault] = useState(
    initial.language === null ? initial.effective_language : undefined,
  );
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const errors = useFormErrors((param) => (param === 'language' ? 'language' : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    setStatus('');
    const language = choice === ORGANIZER_DEFAULT ? null : choice;
    if (language === saved.language) return setStatus('Nothing changed.');
    setBusy(true);
    try {
      const answered = await updateEventTicketSettings(eventId, language);
      setSaved(answered);
      if (answered.language === null) setOrganizerDefault(answered.effective_language);
      setStatus(`Saved: buyers receive their tickets in ${languageName(answered.effective_language)}.`);
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <Field
        id={fieldId('language')}
        label="Ticket language"
        hint={`E-mails, PDF tickets and wallet passes of this event are in ${languageName(saved.effective_language)}.`}
        error={errors.of('language')}
      >
        {(a) => (
          <select {...a} value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
            <option value={ORGANIZER_DEFAULT}>
              Organizer default{organizerDefault === undefined ? '' : ` (${languageName(organizerDefault)})`}
            </option>
            {TICKET_LANGUAGES.map((language) => (
              <option key={language.tag} value={language.tag} lang={language.tag}>
                {language.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Save ticket language" busyLabel="Saving…" busy={busy}>
        <p role="status" class="status">
          {status}
        </p>
      </SubmitActions>
    </form>
  );
}
