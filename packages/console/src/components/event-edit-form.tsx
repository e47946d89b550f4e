/**
 * Editing an event: title, description and contact e-mail (PATCH /v1/events/{id} with
 * the fields that changed; an emptied description or e-mail is cleared). The API's
 * refusals are shown beside their field. Archiving and restoring are in the screen's header
 * (./event-actions.tsx), asked once.
 */
import { useRef, useState } from 'preact/hooks';
import type { EventDetail, UpdateEventRequest } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { useSession } from '../lib/session.ts';

const EDITABLE = new Set(['title', 'description', 'contact_email']);

export function EventEditForm({ event, onSaved }: { event: EventDetail; onSaved: (event: EventDetail) => void }) {
  const { client } = useSession();
  const [title, setTitle] = useState(event.title);
  const [description, setDescription] = useState(event.description ?? '');
  const [contactEmail, setContactEmail] = useState(event.contact_email ?? '');
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState('');
  const idempotency = useRef<{ key: string; body: string } | undefined>(undefined);
  const errors = useFormErrors((param) => (EDITABLE.has(param) ? param : undefined));

  const send = async (change: UpdateEventRequest, done: string) => {
    if (busy) return;
    errors.clear();
    setSaved('');
    const text = JSON.stringify(change);
    if (idempotency.current?.body !== text) idempotency.current = { key: crypto.randomUUID(), body: text };
    setBusy(true);
    try {
      const updated = await client.events.update(event.id, change, { idempotencyKey: idempotency.current.key });
      onSaved(updated);
      setSaved(done);
    } catch (err) {
      errors.fail(err);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const change: UpdateEventRequest = {};
    if (title !== event.title) change.title = title;
    if (description !== (event.description ?? '')) change.description = description.trim() === '' ? null : description;
    if (contactEmail !== (event.contact_email ?? ''))
      change.contact_email = contactEmail.trim() === '' ? null : contactEmail.trim();
    if (Object.keys(change).length === 0) return setSaved('Nothing changed.');
    void send(change, 'Saved.');
  };

  return (
    <section aria-labelledby="edit-heading">
      <h2 id="edit-heading">Edit</h2>
      <form onSubmit={submit} noValidate>
        <Field id={fieldId('title')} label="Title" error={errors.of('title')}>
          {(a) => <input {...a} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
        </Field>
        <Field id={fieldId('description')} label="Description" error={errors.of('description')}>
          {(a) => (
            <textarea {...a} rows={3} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          )}
        </Field>
        <Field
          id={fieldId('contact_email')}
          label="Contact e-mail"
          hint="Empty clears it"
          error={errors.of('contact_email')}
        >
          {(a) => (
            <input {...a} type="email" value={contactEmail} onInput={(e) => setContactEmail(e.currentTarget.value)} />
          )}
        </Field>
        <ErrorNotice error={errors.general} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Save changes
          </button>
        </div>
        <p role="status">{saved}</p>
      </form>
    </section>
  );
}
