/**
 * `/app/setup?token=…`: the first owner of an organizer (docs/dashboard.md, "One-time
 * links"): the link Marquee prints at its first start. E-mail address, name and password
 * make the account, which is then signed in.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { EmailField, NewPasswordField } from '../components/password-input.tsx';
import { PublicPage } from '../components/public-page.tsx';
import { answer, dashboard, type SessionBody } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';

const FIELDS = new Set(['email', 'name', 'password']);

export function Setup({ onSignedIn }: { onSignedIn: (body: SessionBody) => void }) {
  const token = useLocation().query.token ?? '';
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) => (FIELDS.has(param) ? param : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    errors.clear();
    try {
      const body = { token, email: email.trim(), name: name.trim(), password };
      onSignedIn(await answer(dashboard.POST('/dashboard/v1/setup', { body })));
    } catch (err) {
      errors.fail(err);
      setBusy(false);
    }
  };

  return (
    <PublicPage title="Set up Marquee">
      {token === '' ? (
        <ErrorNotice
          error={new Error('This page opens from the set-up link Marquee printed; the link has no token.')}
        />
      ) : (
        <form onSubmit={(e) => void submit(e)}>
          <p>You are the first owner of this organizer. Create your account.</p>
          <EmailField
            id={fieldId('email')}
            autoComplete="username"
            error={errors.of('email')}
            value={email}
            onInput={setEmail}
          />
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
          <ErrorNotice error={errors.general} />
          <SubmitActions label="Create the account" busyLabel="Creating…" busy={busy} />
        </form>
      )}
    </PublicPage>
  );
}
