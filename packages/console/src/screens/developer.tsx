/**
 * `/app/developer` (permission `api_keys`, owners): the organizer's API keys (docs/dashboard.md,
 * "Developer settings"). Create one with a name, its scopes and an optional expiry typed
 * in the organizer's time zone; its raw key is shown this once, as the API answers it
 * once. The keys, newest first: preview, scopes, who created it, last use, expiry and
 * status; an active key is revoked after a confirming second click.
 */
import { useState } from 'preact/hooks';
import { ConfirmAction } from '../components/confirm-action.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { SecretNotice } from '../components/secret-notice.tsx';
import { answer, dashboard } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { dateTime, zonedInputToIso } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';
import { ActionsCol } from '../components/table-headers.tsx';

type ApiKeyList = Awaited<ReturnType<typeof listPage>>;
type ApiKey = ApiKeyList['data'][number];
/** The scopes a key is created with here; `check_in` is a door device's, made by pairing it (docs/door.md). */
type Scope = Exclude<ApiKey['scopes'][number], 'check_in'>;

const PAGE = 100;
const SCOPES: readonly { scope: Scope; label: string }[] = [
  { scope: 'read', label: 'Read' },
  { scope: 'write', label: 'Write' },
];

const listPage = (starting_after?: string) =>
  answer(
    dashboard.GET('/dashboard/v1/api_keys', {
      params: { query: starting_after === undefined ? { limit: PAGE } : { limit: PAGE, starting_after } },
    }),
  );

/** Every key, newest first (an organizer has a handful). */
async function allKeys(): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  for (;;) {
    const page = await listPage(keys.at(-1)?.id);
    keys.push(...page.data);
    if (!page.has_more) return keys;
  }
}

const nameOf = (key: ApiKey) => key.name ?? key.key_preview;

function statusOf(key: ApiKey, now: number): 'Active' | 'Revoked' | 'Expired' {
  if (key.revoked_at !== null) return 'Revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return 'Expired';
  return 'Active';
}

export function Developer() {
  useTitle('Developer');
  const { organizer } = useSession();
  const keys = useAsync(allKeys, []);
  const [created, setCreated] = useState<string>();
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>();

  const revoke = async (key: ApiKey) => {
    setError(undefined);
    setStatus('');
    try {
      await answer(dashboard.POST('/dashboard/v1/api_keys/{id}/revoke', { params: { path: { id: key.id } } }));
      setStatus(`${nameOf(key)} was revoked.`);
    } catch (err) {
      setError(err);
    }
    keys.reload();
  };

  return (
    <>
      <h1>Developer</h1>
      <p>
        The API keys of {organizer.name}: programs send one as <code>Authorization: Bearer …</code> to the API.
      </p>
      <CreateForm
        onCreated={(key) => {
          setStatus('');
          setCreated(key);
          keys.reload();
        }}
      />
      {created !== undefined && (
        <SecretNotice secret={created} label="API key" note="copy it now. It will not be shown again." copyable />
      )}
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNotice error={error ?? keys.error} />
      <h2>Keys</h2>
      {keys.loading && !keys.data ? (
        <p class="loading">Loading…</p>
      ) : (
        <KeyTable keys={keys.data ?? []} onRevoke={(key) => void revoke(key)} />
      )}
    </>
  );
}

function CreateForm({ onCreated }: { onCreated: (key: string) => void }) {
  const { organizer } = useSession();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) =>
    param === 'name' || param === 'scopes' || param === 'expires_at' ? param : undefined,
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    let expiresAt: string | undefined;
    if (expires !== '') {
      expiresAt = zonedInputToIso(expires, organizer.timezone);
      if (expiresAt === undefined) {
        errors.failField('expires_at', 'Enter a date and a time.');
        return;
      }
    }
    if (scopes.length === 0) {
      errors.failField('scopes', 'Choose at least one scope.');
      return;
    }
    setBusy(true);
    try {
      const trimmed = name.trim();
      const key = await answer(
        dashboard.POST('/dashboard/v1/api_keys', {
          body: {
            scopes: SCOPES.map((s) => s.scope).filter((s) => scopes.includes(s)),
            ...(trimmed !== '' ? { name: trimmed } : {}),
            ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
          },
        }),
      );
      setName('');
      setScopes(['read']);
      setExpires('');
      onCreated(key.key);
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <h2>Create an API key</h2>
      <Field
        id={fieldId('name')}
        label="Name"
        hint="What the key is for, to recognise it later."
        error={errors.of('name')}
      >
        {(a) => (
          <input {...a} type="text" autoComplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        )}
      </Field>
      <fieldset id={fieldId('scopes')} tabIndex={-1}>
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, label }) => (
          <label class="check" key={scope}>
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) =>
                setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))
              }
            />{' '}
            {label}
          </label>
        ))}
        {errors.of('scopes') !== undefined && <p class="field-error">{errors.of('scopes')}</p>}
      </fieldset>
      <Field
        id={fieldId('expires_at')}
        label="Expires (optional)"
        hint={`In ${organizer.timezone}, the organizer's time zone. Empty: the key does not expire.`}
        error={errors.of('expires_at')}
      >
        {(a) => (
          <input {...a} type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        )}
      </Field>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Create key" busyLabel="Creating…" busy={busy} />
    </form>
  );
}

function KeyTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke: (key: ApiKey) => void }) {
  const { organizer } = useSession();
  const when = (iso: string | null) => (iso === null ? 'Never' : dateTime(iso, organizer.timezone));
  const now = Date.now();
  return (
    <table class="api-keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created by</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
          <ActionsCol />
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => {
          const status = statusOf(k, now);
          const name = nameOf(k);
          return (
            <tr key={k.id} data-key={k.id}>
              <td>{k.name ?? '—'}</td>
              <td>
                <code>{k.key_preview}…</code>
              </td>
              <td>
                {k.scopes
                  .map((s) =>
                    s === 'check_in' ? 'Check-in (door device)' : (SCOPES.find((x) => x.scope === s)?.label ?? s),
                  )
                  .join(', ')}
              </td>
              <td>{k.created_by === null ? 'Admin API' : (k.created_by.name ?? k.created_by.email ?? '—')}</td>
              <td>{dateTime(k.created_at, organizer.timezone)}</td>
              <td>{when(k.last_used_at)}</td>
              <td>{when(k.expires_at)}</td>
              <td>
                <span class={status === 'Active' ? 'badge good' : 'badge bad'}>{status}</span>
              </td>
              <td>
                {status === 'Active' && (
                  <ConfirmAction
                    label="Revoke"
                    ariaLabel={`Revoke ${name}`}
                    confirmLabel="Yes, revoke"
                    consequence={`Revoke ${name}? Programs using it stop working at once.`}
                    onConfirm={() => onRevoke(k)}
                  />
                )}
              </td>
            </tr>
          );
        })}
        {keys.length === 0 && (
          <tr>
            <td colSpan={9}>No API keys yet.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
