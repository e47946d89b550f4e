/**
 * Signing in as a person (docs/dashboard.md, "The session API"): e-mail address and
 * password; when the account has an authenticator app, the API answers 401
 * `totp_required` and the form asks for its code (or a recovery code) as a second step.
 * A refusal is shown with the API's detail and request id.
 */
import { useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { AuthCodeField, EmailField, PasswordField } from '../components/password-input.tsx';
import { PublicPage } from '../components/public-page.tsx';
import { answer, codeOf, dashboard, type SessionBody } from '../lib/dashboard.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (body: SessionBody) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [askTotp, setAskTotp] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const code = totp.replace(/\s+/g, '');
      const body = { email: email.trim(), password, ...(askTotp && code !== '' ? { totp: code } : {}) };
      onSignedIn(await answer(dashboard.POST('/dashboard/v1/session', { body })));
    } catch (err) {
      if (codeOf(err) === 'totp_required' && !askTotp) {
        setAskTotp(true);
        requestAnimationFrame(() => codeField.current?.focus());
      } else setError(err);
      setBusy(false);
    }
  };

  return (
    <PublicPage title="Sign in">
      <form onSubmit={(e) => void submit(e)}>
        {askTotp ? (
          <>
            <p>Enter the code your authenticator app shows for Marquee, or one of your recovery codes.</p>
            <AuthCodeField id="totp" inputRef={codeField} value={totp} onInput={setTotp} />
          </>
        ) : (
          <>
            <p>Sign in with your e-mail address and password.</p>
            <EmailField id="email" autoComplete="username" value={email} onInput={setEmail} />
            <PasswordField
              id="password"
              label="Password"
              autoComplete="current-password"
              value={password}
              onInput={setPassword}
            />
          </>
        )}
        <ErrorNotice error={error} />
        <SubmitActions label={askTotp ? 'Verify' : 'Sign in'} busyLabel="Signing in…" busy={busy}>
          {askTotp && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setAskTotp(false);
                setTotp('');
                setError(undefined);
              }}
            >
              Back
            </button>
          )}
        </SubmitActions>
      </form>
      <p>
        <a href="/app/reset">Forgot password?</a>
      </p>
    </PublicPage>
  );
}
