/**
 * A webhook endpoint's settings: URL (https, public: the API vets it, docs/webhooks.md),
 * description and the event types it receives; on edit also enabled or disabled. The
 * API's refusals are shown beside their field.
 */
import { useRef, useState } from 'preact/hooks';
import type { CreateWebhookEndpointRequest, WebhookEndpoint } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';

type EventType = CreateWebhookEndpointRequest['event_types'][number];
/** The seven subscribable event types (docs/webhooks.md). */
const EVENT_TYPES: readonly EventType[] = [
  'order.created',
  'order.paid',
  'order.refunded',
  'ticket.issued',
  'ticket.checked_in',
  'event.published',
  'event.updated',
];
const FIELDS = new Set(['url', 'description', 'event_types', 'status']);

interface EndpointSettings {
  url: string;
  description: string | null;
  event_types: EventType[];
  status?: 'enabled' | 'disabled';
}

export function EndpointForm({
  endpoint,
  submitLabel,
  onSubmit,
}: {
  endpoint?: WebhookEndpoint;
  submitLabel: string;
  /** Sends the settings with the given Idempotency-Key; throws the API's refusal. */
  onSubmit: (settings: EndpointSettings, idempotencyKey: string) => Promise<void>;
}) {
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [types, setTypes] = useState<EventType[]>(endpoint?.event_types ?? []);
  const [enabled, setEnabled] = useState(endpoint === undefined || endpoint.status === 'enabled');
  const [busy, setBusy] = useState(false);
  const idempotency = useRef<{ key: string; body: string } | undefined>(undefined);
  const errors = useFormErrors((param) => {
    const head = param.split('.')[0]!;
    return FIELDS.has(head) ? head : undefined;
  });

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    const settings: EndpointSettings = {
      url: url.trim(),
      description: description.trim() === '' ? null : description.trim(),
      event_types: EVENT_TYPES.filter((t) => types.includes(t)),
      // Only a change: an auto-disabled endpoint stays so until someone enables it.
      ...(endpoint !== undefined && enabled !== (endpoint.status === 'enabled')
        ? { status: enabled ? ('enabled' as const) : ('disabled' as const) }
        : {}),
    };
    const text = JSON.stringify(settings);
    if (idempotency.current?.body !== text) idempotency.current = { key: crypto.randomUUID(), body: text };
    setBusy(true);
    try {
      await onSubmit(settings, idempotency.current.key);
    } catch (err) {
      errors.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={submitLabel}>
      <Field id={fieldId('url')} label="URL" hint="https://, reachable from the internet" error={errors.of('url')}>
        {(a) => <input {...a} type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
      </Field>
      <Field id={fieldId('description')} label="Description (optional)" error={errors.of('description')}>
        {(a) => <input {...a} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      <fieldset id={fieldId('event_types')} tabIndex={-1} class={errors.of('event_types') ? 'invalid' : ''}>
        <legend>Event types</legend>
        {EVENT_TYPES.map((type) => (
          <label class="check" key={type}>
            <input
              type="checkbox"
              checked={types.includes(type)}
              onChange={(e) => setTypes(e.currentTarget.checked ? [...types, type] : types.filter((t) => t !== type))}
            />{' '}
            {type}
          </label>
        ))}
        {errors.of('event_types') !== undefined && <p class="field-error">{errors.of('event_types')}</p>}
      </fieldset>
      {endpoint !== undefined && (
        <label class="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled
        </label>
      )}
      <ErrorNotice error={errors.general} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
