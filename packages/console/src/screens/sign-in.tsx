/**
 * Sign-in with an organizer API key. The key is checked with GET /v1/api_key (its scopes
 * and organizer) before it is kept, in sessionStorage only (docs/console.md).
 */
import { useState } from 'preact/hooks';
import type { CurrentApiKey, Marquee } from '@marquee/sdk';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { clientFor } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (apiKey: string, client: Marquee, key: CurrentApiKey) => void }) {
  useTitle('Sign in');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const trimmed = apiKey.trim();
    if (trimmed === '') return setError(new Error('Enter an API key.'));
    setBusy(true);
    setError(undefined);
    try {
      const client = clientFor(trimmed);
      const key = await client.apiKey.get();
      if (!key.scopes.includes('read')) throw new Error('This key lacks the `read` scope the console needs.');
      onSignedIn(trimmed, client, key);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Marquee console</h1>
      <p>Sign in with an organizer API key. It is kept in this browser tab only and forgotten when you sign out.</p>
      <form onSubmit={(e) => void submit(e)}>
        <Field id="api-key" label="API key">
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="off"
              spellcheck={false}
              placeholder="mqk_…"
              value={apiKey}
              onInput={(e) => setApiKey(e.currentTarget.value)}
            />
          )}
        </Field>
        <ErrorNotice error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
