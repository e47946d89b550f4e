/**
 * The inputs the sign-in, invitation, set-up, reset, profile and team screens share:
 * a password, the authenticator code (TOTP or a recovery code) and an e-mail address,
 * each a labelled {@link Field} whose label the browser tests and screen readers find
 * it by.
 */
import type { Ref } from 'preact';
import { Field } from './field.tsx';
import { PASSWORD_HINT } from './public-page.tsx';

interface InputProps {
  id: string;
  error?: string | undefined;
  value: string;
  onInput: (value: string) => void;
}

/** A password: `current-password` where one is proved, `new-password` where one is chosen. */
export function PasswordField({
  id,
  label,
  autoComplete,
  hint,
  error,
  value,
  onInput,
}: InputProps & { label: string; autoComplete: 'current-password' | 'new-password'; hint?: string }) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      {(a) => (
        <input
          {...a}
          type="password"
          required
          autoComplete={autoComplete}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A password being chosen: `new-password`, with the password policy as its hint. */
export function NewPasswordField(props: InputProps & { label: string }) {
  return <PasswordField {...props} autoComplete="new-password" hint={PASSWORD_HINT} />;
}

/**
 * The second step of signing in (or of accepting an invitation with an existing account):
 * the code the authenticator app shows, or a recovery code. `inputRef` lets the form move
 * the focus to it when the API answers `totp_required`.
 */
export function AuthCodeField({
  id,
  error,
  value,
  onInput,
  inputRef,
}: InputProps & { inputRef: Ref<HTMLInputElement> }) {
  return (
    <Field id={id} label="Authentication code" error={error}>
      {(a) => (
        <input
          {...a}
          ref={inputRef}
          required
          autoComplete="one-time-code"
          inputMode="numeric"
          spellcheck={false}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** An e-mail address: `username` where it signs in, `off` where it names someone else. */
export function EmailField({
  id,
  autoComplete,
  error,
  value,
  onInput,
}: InputProps & { autoComplete: 'username' | 'off' }) {
  return (
    <Field id={id} label="E-mail address" error={error}>
      {(a) => (
        <input
          {...a}
          type="email"
          required
          autoComplete={autoComplete}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}
