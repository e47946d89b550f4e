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
import { SubmitActions } from '../components/form-actions.tsx';
import { AuthCodeField, NewPasswordField, PasswordField } from '../components/password-input.tsx';
import { PublicPage } from '../components/public-page.tsx';
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
          <PasswordField
            id={fieldId('password')}
            label="Password"
            autoComplete="current-password"
            error={errors.of('password')}
            value={password}
            onInput={setPassword}
          />
          {askTotp && (
            <AuthCodeField
              id={fieldId('totp')}
              inputRef={codeField}
              error={errors.of('totp')}
              value={totp}
              onInput={setTotp}
            />
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
          <NewPasswordField
            id={fieldId('password')}
            label="Password"
            error={errors.of('password')}
            value={password}
            onInput={setPassword}
          />
        </>
      )}
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Accept invitation" busyLabel="Accepting…" busy={busy} />
    </form>
  );
}
