/**
 * `/app/invite?token=…`: an invitation to an organizer's team (docs/dashboard.md,
 * "One-time links"). The page first shows what the link offers (organizer, role, the
 * address it was sent to); a new account then chooses its name and password, an address
 * that already has an account proves it with its password (and its authenticator code,
 * when the API answers `totp_required`), as at sign-in. Accepting signs in.
 */
import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { PASSWORD_HINT, PublicPage } from '../components/public-page.tsx';
import { answer, codeOf, dashboard, type InvitationPreview, type SessionBody } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { roleLabel } from '../lib/roles.ts';
import { useAsync } from '../lib/use-async.ts';

export function Invite({ onSignedIn }: { onSignedIn: (body: SessionBody) => void }) {
  const token = useLocation().query.token ?? '';
  const preview = useAsync(
    () =>
      token === ''
        ? Promise.reject(new Error('This page opens from the link in an invitation e-mail; the link has no token.'))
        : answer(dashboard.POST('/dashboard/v1/invitation', { body: { token } })),
    [token],
  );
  return (
    <PublicPage title="Invitation">
      {preview.loading && !preview.data && <p class="loading">Reading the invitation…</p>}
      <ErrorNotice error={preview.error} />
      {preview.data && <Accept token={token} invitation={preview.data} onSignedIn={onSignedIn} />}
      {preview.error !== undefined && (
        <p>
          <a href="/app/">Go to sign in</a>
        </p>
      )}
    </PublicPage>
  );
}

function Accept({
  token,
  invitation,
  onSignedIn,
}: {
  token: string;
  invitation: InvitationPreview;
  onSignedIn: (body: SessionBody) => void;
}) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [askTotp, setAskTotp] = useState(false);
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);
  const errors = useFormErrors((param) =>
    param === 'name' || param === 'password' || param === 'totp' ? param : undefined,
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    errors.clear();
    try {
      const code = totp.replace(/\s+/g, '');
      const body = invitation.account_exists
        ? { token, password, ...(askTotp && code !== '' ? { totp: code } : {}) }
        : { token, name: name.trim(), password };
      onSignedIn(await answer(dashboard.POST('/dashboard/v1/invitation/accept', { body })));
    } catch (err) {
      if (codeOf(err) === 'totp_required' && !askTotp) {
        setAskTotp(true);
        requestAnimationFrame(() => codeField.current?.focus());
      } else errors.fail(err);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <p class="invitation">
        <strong>{invitation.organizer_name}</strong> invites <strong>{invitation.email}</strong> to its team as{' '}
        <strong>{roleLabel(invitation.role)}</strong>.
      </p>
      {invitation.account_exists ? (
        <>
          <p>
            This address already has a Marquee account: enter its password to add {invitation.organizer_name} to it.
          </p>
          <Field id={fieldId('password')} label="Password" error={errors.of('password')}>
            {(a) => (
              <input
                {...a}
                type="password"
                required
                autoComplete="current-password"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            )}
          </Field>
          {askTotp && (
            <Field id={fieldId('totp')} label="Authentication code" error={errors.of('totp')}>
              {(a) => (
                <input
                  {...a}
                  ref={codeField}
                  required
                  autoComplete="one-time-code"
                  inputMode="numeric"
                  spellcheck={false}
                  value={totp}
                  onInput={(e) => setTotp(e.currentTarget.value)}
                />
              )}
            </Field>
          )}
        </>
      ) : (
        <>
          <p>Choose your name and a password for your new account.</p>
          <Field id={fieldId('name')} label="Your name" error={errors.of('name')}>
            {(a) => (
              <input {...a} required autoComplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
            )}
          </Field>
          <Field id={fieldId('password')} label="Password" hint={PASSWORD_HINT} error={errors.of('password')}>
            {(a) => (
              <input
                {...a}
                type="password"
                required
                autoComplete="new-password"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            )}
          </Field>
        </>
      )}
      <ErrorNotice error={errors.general} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Accepting…' : 'Accept invitation'}
        </button>
      </div>
    </form>
  );
}
