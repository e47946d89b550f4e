/**
 * Webhooks: the endpoints (create one, its secret shown once), one endpoint (the test
 * button, edit, rotate its secret, delete; its deliveries with status and answer; recover failures since a
 * time), and one delivery (the payload, every attempt with the endpoint's answer;
 * redeliver). docs/webhooks.md has the rules.
 */
import { useState } from 'preact/hooks';
import { useOutcomeFocus } from '../lib/outcome-focus.ts';
import { useLocation } from 'preact-iso';
import type { WebhookDelivery, WebhookEndpoint, WebhookRecovery } from '@marquee/sdk';
import { ConfirmAction } from '../components/confirm-action.tsx';
import { EndpointForm } from '../components/endpoint-form.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { answer, dashboard } from '../lib/dashboard.ts';
import { Field } from '../components/field.tsx';
import { SecretNotice } from '../components/secret-notice.tsx';
import { dateTime, zonedInputToIso } from '../lib/format.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

const DELIVERY_STATUSES = ['pending', 'success', 'failed', 'exhausted'] as const;

function StatusBadge({ status }: { status: string }) {
  const tone = status === 'success' || status === 'enabled' ? 'good' : status === 'pending' ? '' : 'bad';
  return <span class={`badge ${tone}`}>{status}</span>;
}

export function WebhooksList() {
  useTitle('Webhooks');
  const { client, can } = useSession();
  const canWrite = can('webhooks');
  const [created, setCreated] = useState<{ id: string; secret: string } | undefined>();
  const endpoints = useAsync(async () => (await client.webhookEndpoints.list({ limit: 100 })).data, [client]);
  return (
    <>
      <h1>Webhooks</h1>
      <ErrorNotice error={endpoints.error} />
      <table>
        <caption class="visually-hidden">Webhook endpoints, newest first</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Status</th>
            <th scope="col">Event types</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {(endpoints.data ?? []).map((endpoint) => (
            <tr key={endpoint.id}>
              <td>
                <a href={`/app/webhooks/${endpoint.id}`}>{endpoint.url}</a>
              </td>
              <td>
                <StatusBadge status={endpoint.status} />
              </td>
              <td>{endpoint.event_types.join(', ')}</td>
              <td>{endpoint.description ?? ''}</td>
            </tr>
          ))}
          {endpoints.data?.length === 0 && (
            <tr>
              <td colSpan={4}>No endpoints yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      {created !== undefined && (
        <>
          <SecretNotice secret={created.secret} />
          <p>
            <a href={`/app/webhooks/${created.id}`}>Open the new endpoint</a>
          </p>
        </>
      )}
      {canWrite && (
        <section aria-labelledby="new-endpoint">
          <h2 id="new-endpoint">Add an endpoint</h2>
          <EndpointForm
            submitLabel="Add endpoint"
            onSubmit={async (settings, idempotencyKey) => {
              const endpoint = await client.webhookEndpoints.create(settings, { idempotencyKey });
              setCreated({ id: endpoint.id, secret: endpoint.secret });
              endpoints.reload();
            }}
          />
        </section>
      )}
    </>
  );
}

export function WebhookEndpointScreen({ id }: { id: string }) {
  const { client, can } = useSession();
  const canWrite = can('webhooks');
  const { route } = useLocation();
  const loaded = useAsync(() => client.webhookEndpoints.get(id), [client, id]);
  const [endpoint, setEndpoint] = useState<WebhookEndpoint | undefined>();
  const [secret, setSecret] = useState<string | undefined>();
  const [saved, setSaved] = useState('');
  const [actionError, setActionError] = useState<unknown>();
  // Test pings sent from this page: the deliveries below are read again after each.
  const [sent, setSent] = useState(0);
  // A refused rotation or deletion takes the keyboard's focus, as its sentence is read out.
  const refusal = useOutcomeFocus(actionError, actionError !== undefined);
  const current = endpoint?.id === id ? endpoint : loaded.data;
  useTitle(current === undefined ? 'Webhook endpoint' : `Endpoint ${current.url}`);
  if (loaded.error !== undefined) return <ErrorNotice error={loaded.error} />;
  if (current === undefined) return <p class="loading">Loading the endpoint…</p>;

  const rotate = async () => {
    setActionError(undefined);
    try {
      const rotated = await client.webhookEndpoints.rotateSecret(id);
      setSecret(rotated.secret);
      setEndpoint(rotated);
    } catch (err) {
      setActionError(err);
    }
  };
  const remove = async () => {
    setActionError(undefined);
    try {
      await client.webhookEndpoints.delete(id);
      route('/app/webhooks');
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <>
      <div class="screen-head">
        <h1>Endpoint</h1>
        <StatusBadge status={current.status} />
      </div>
      <dl class="facts">
        <dt>URL</dt>
        <dd>{current.url}</dd>
        <dt>Event types</dt>
        <dd>{current.event_types.join(', ')}</dd>
        <dt>Secret</dt>
        <dd>{current.secret_preview}</dd>
        {current.disabled_reason !== null && (
          <>
            <dt>Disabled because</dt>
            <dd>{current.disabled_reason}</dd>
          </>
        )}
      </dl>
      {canWrite && (
        <TestPing endpointId={id} disabled={current.status !== 'enabled'} onSent={() => setSent((n) => n + 1)} />
      )}
      {secret !== undefined && <SecretNotice secret={secret} />}
      <div ref={refusal} tabIndex={-1} class="outcome">
        <ErrorNotice error={actionError} />
      </div>
      {canWrite && (
        <>
          <h2>Settings</h2>
          <EndpointForm
            key={current.updated_at}
            endpoint={current}
            submitLabel="Save endpoint"
            onSubmit={async (settings, idempotencyKey) => {
              const { url, description, event_types, status } = settings;
              const change = {
                ...(url !== current.url ? { url } : {}),
                ...(description !== current.description ? { description } : {}),
                ...(event_types.join() !== current.event_types.join() ? { event_types } : {}),
                ...(status !== undefined ? { status } : {}),
              };
              if (Object.keys(change).length === 0) return setSaved('Nothing changed.');
              setEndpoint(await client.webhookEndpoints.update(id, change, { idempotencyKey }));
              setSaved('Saved.');
            }}
          />
          <p role="status">{saved}</p>
          <div class="actions">
            <ConfirmAction
              label="Rotate secret"
              confirmLabel="Yes, rotate the secret"
              consequence="Rotate: the current secret stops verifying at once. The new one is shown here once; deploy it to your receiver right away."
              onConfirm={rotate}
            />
            <ConfirmAction
              label="Delete endpoint"
              confirmLabel="Yes, delete this endpoint"
              consequence="Delete: the endpoint receives nothing more, and its delivery log goes with it. This cannot be undone."
              onConfirm={remove}
            />
          </div>
        </>
      )}
      <Deliveries endpointId={id} refresh={sent} />
    </>
  );
}

/**
 * The test button (POST /dashboard/v1/webhook_endpoints/{id}/test): one `test.ping` to this
 * endpoint only, even a disabled one, and the delivery it made, linked to its screen.
 */
function TestPing({ endpointId, disabled, onSent }: { endpointId: string; disabled: boolean; onSent: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ n: number; delivery?: WebhookDelivery; error?: unknown }>({ n: 0 });
  const outcome = useOutcomeFocus(result, result.n > 0);
  const send = async () => {
    if (busy) return;
    setBusy(true);
    setResult((r) => ({ n: r.n }));
    try {
      const delivery = await answer(
        dashboard.POST('/dashboard/v1/webhook_endpoints/{id}/test', { params: { path: { id: endpointId } } }),
      );
      setResult((r) => ({ n: r.n + 1, delivery }));
      onSent();
    } catch (error) {
      setResult((r) => ({ n: r.n + 1, error }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="test-ping">
      <div class="actions">
        <button type="button" class="secondary" disabled={busy} onClick={() => void send()}>
          Send test.ping
        </button>
      </div>
      <p class="hint">
        One test.ping to this endpoint only{disabled ? ', sent even though it is disabled' : ''}; no other endpoint
        receives it.
      </p>
      <div ref={outcome} tabIndex={-1} class="outcome">
        {result.delivery !== undefined && (
          <p class="notice ok" role="status">
            test.ping queued for this endpoint (delivery {result.delivery.status}).{' '}
            <a href={`/app/webhooks/deliveries/${result.delivery.id}`}>Open the test delivery</a>
          </p>
        )}
        <ErrorNotice error={result.error} />
      </div>
    </div>
  );
}

function Deliveries({ endpointId, refresh }: { endpointId: string; refresh: number }) {
  const { client, can, organizer } = useSession();
  const canWrite = can('webhooks');
  const [status, setStatus] = useState('');
  const deliveries = useAsync(
    async () =>
      (
        await client.webhookEndpoints.listDeliveries(endpointId, {
          limit: 50,
          ...(status !== '' ? { status: [status as WebhookDelivery['status']] } : {}),
        })
      ).data,
    [client, endpointId, status, refresh],
  );
  const zone = organizer.timezone;
  return (
    <section aria-labelledby="deliveries-heading">
      <div class="screen-head">
        <h2 id="deliveries-heading">Deliveries</h2>
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh deliveries
        </button>
      </div>
      <div class="field">
        <label for="delivery-status">Status</label>
        <select id="delivery-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">Any</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <ErrorNotice error={deliveries.error} />
      <table>
        <caption class="visually-hidden">Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event type</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Attempt
            </th>
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {(deliveries.data ?? []).map((d) => (
            <tr key={d.id}>
              <td>
                <a href={`/app/webhooks/deliveries/${d.id}`}>{dateTime(d.created_at, zone)}</a>
              </td>
              <td>{d.event_type}</td>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td class="num">{d.attempt}</td>
              <td>
                {d.response_status !== null ? `HTTP ${d.response_status}` : ''}
                {d.response_ms !== null ? ` in ${d.response_ms} ms` : ''}
                {d.error !== null ? ` · ${d.error}` : ''}
              </td>
            </tr>
          ))}
          {deliveries.data?.length === 0 && (
            <tr>
              <td colSpan={5}>No deliveries.</td>
            </tr>
          )}
        </tbody>
      </table>
      {canWrite && <RecoverForm endpointId={endpointId} onRecovered={deliveries.reload} />}
    </section>
  );
}

function RecoverForm({ endpointId, onRecovered }: { endpointId: string; onRecovered: () => void }) {
  const { client, organizer } = useSession();
  const [since, setSince] = useState('');
  const [result, setResult] = useState<WebhookRecovery | undefined>();
  const errors = useFormErrors((param) => (param === 'since' ? 'since' : undefined));
  const zone = organizer.timezone;
  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    setResult(undefined);
    const iso = zonedInputToIso(since, zone);
    if (iso === undefined) return errors.failField('since', 'Choose the date and time to recover from.');
    try {
      setResult(await client.webhookEndpoints.recover(endpointId, { since: iso }));
      onRecovered();
    } catch (err) {
      errors.fail(err);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Recover failed deliveries">
      <h3>Recover failed deliveries</h3>
      <Field
        id={fieldId('since')}
        label={`Failed or exhausted since (${zone})`}
        hint="Each one is sent again as a new delivery"
        error={errors.of('since')}
      >
        {(a) => <input {...a} type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} />}
      </Field>
      <ErrorNotice error={errors.general} />
      <button type="submit">Recover</button>
      {result !== undefined && (
        <p role="status">
          Sent again: {result.redelivered}; already pending: {result.already_pending}
          {result.has_more ? '; more remain: recover again.' : '.'}
        </p>
      )}
    </form>
  );
}

export function WebhookDeliveryScreen({ id }: { id: string }) {
  const { client, can, organizer } = useSession();
  const canWrite = can('webhooks');
  const loaded = useAsync(() => client.webhookDeliveries.get(id), [client, id]);
  const [redelivered, setRedelivered] = useState<WebhookDelivery | undefined>();
  const [error, setError] = useState<unknown>();
  useTitle('Webhook delivery');
  if (loaded.error !== undefined) return <ErrorNotice error={loaded.error} />;
  const delivery = loaded.data;
  if (delivery === undefined) return <p class="loading">Loading the delivery…</p>;
  const zone = organizer.timezone;
  const redeliver = async () => {
    setError(undefined);
    try {
      setRedelivered(await client.webhookDeliveries.redeliver(id));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <div class="screen-head">
        <h1>Delivery of {delivery.event_type}</h1>
        <StatusBadge status={delivery.status} />
      </div>
      <p>
        <a href={`/app/webhooks/${delivery.endpoint_id}`}>Back to the endpoint</a>
      </p>
      <dl class="facts">
        <dt>Event id (webhook-id)</dt>
        <dd>{delivery.event_id}</dd>
        <dt>Created</dt>
        <dd>{dateTime(delivery.created_at, zone)}</dd>
        <dt>Attempts</dt>
        <dd>{delivery.attempt}</dd>
        {delivery.next_retry_at !== null && (
          <>
            <dt>Next retry</dt>
            <dd>{dateTime(delivery.next_retry_at, zone)}</dd>
          </>
        )}
      </dl>
      {canWrite && (
        <div class="actions">
          <button type="button" onClick={() => void redeliver()}>
            Redeliver
          </button>
        </div>
      )}
      <ErrorNotice error={error} />
      {redelivered !== undefined && (
        <p class="notice ok" role="status">
          Queued again as a new delivery ({redelivered.status}).{' '}
          <a href={`/app/webhooks/deliveries/${redelivered.id}`}>Open it</a>
        </p>
      )}
      <h2>Payload</h2>
      <pre>{delivery.payload}</pre>
      <h2>Attempts and the endpoint's answers</h2>
      {delivery.attempts.length === 0 && <p>Not attempted yet.</p>}
      {delivery.attempts.map((a) => (
        <section key={a.attempt} class="attempt" aria-label={`Attempt ${a.attempt}`}>
          <h3>
            Attempt {a.attempt}: {a.response_status !== null ? `HTTP ${a.response_status}` : 'no answer'}
            {a.response_ms !== null ? ` in ${a.response_ms} ms` : ''}
          </h3>
          <p>{dateTime(a.created_at, zone)}</p>
          {a.error !== null && <p>Error: {a.error}</p>}
          {a.response_headers !== null && (
            <dl class="facts">
              {Object.entries(a.response_headers).map(([name, value]) => (
                <>
                  <dt key={`${name}-n`}>{name}</dt>
                  <dd key={`${name}-v`}>{value}</dd>
                </>
              ))}
            </dl>
          )}
          {a.response_body !== null && (
            <pre aria-label={`Answer body of attempt ${a.attempt}`}>
              {a.response_body}
              {a.response_body_truncated ? '\n… (cut)' : ''}
            </pre>
          )}
        </section>
      ))}
    </>
  );
}
