/**
 * `/app/reset`: a forgotten password (docs/dashboard.md, "One-time links"). Without a
 * token it asks for the e-mail address and has a link sent (the same answer whether or
 * not the address has an account); the link, `/app/reset?token=…`, opens the form for
 * the new password. Every session of the user ends, so they sign in again after.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ErrorNotice } from '../components/error-notice.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { EmailField, NewPasswordField } from '../components/password-input.tsx';
import { PublicPage } from '../components/public-page.tsx';
import { answer, codeOf, dashboard } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';

export function Reset() {
  const { query } = useLocation();
  const token = query.token;
  return token ? <NewPassword token={token} /> : <RequestLink />;
}

function RequestLink() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await answer(dashboard.POST('/dashboard/v1/password_resets', { body: { email: email.trim() } }));
      setSentTo(email.trim());
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };

  return (
    <PublicPage title="Forgot password">
      {sentTo !== undefined ? (
        <div class="notice" role="status">
          <p>
            If <strong>{sentTo}</strong> has an account, a link to choose a new password is on its way there. It works
            once, for an hour.
          </p>
        </div>
      ) : (
        <form onSubmit={(e) => void submit(e)}>
          <p>Enter the e-mail address you sign in with. We will send it a link to choose a new password.</p>
          <EmailField id="email" autoComplete="username" value={email} onInput={setEmail} />
          <ErrorNotice error={error} />
          <SubmitActions label="Send the link" busyLabel="Sending…" busy={busy} />
        </form>
      )}
      <p>
        <a href="/app/">Back to sign in</a>
      </p>
    </PublicPage>
  );
}

function NewPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) => (param === 'password' ? param : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    errors.clear();
    try {
      await answer(dashboard.POST('/dashboard/v1/password_resets/complete', { body: { token, password } }));
      setDone(true);
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  return (
    <PublicPage title="Choose a new password">
      {done ? (
        <div class="notice" role="status">
          <p>Your password is changed, and every session that was signed in with the old one has ended.</p>
          <p>
            <a href="/app/">Sign in</a> with the new password.
          </p>
        </div>
      ) : (
        <form onSubmit={(e) => void submit(e)}>
          <NewPasswordField
            id={fieldId('password')}
            label="New password"
            error={errors.of('password')}
            value={password}
            onInput={setPassword}
          />
          <ErrorNotice error={errors.general} />
          {codeOf(errors.general) === 'link_invalid' && (
            <p>
              <a href="/app/reset">Send a new link</a>
            </p>
          )}
          <SubmitActions label="Set the password" busyLabel="Saving…" busy={busy} />
        </form>
      )}
    </PublicPage>
  );
}
