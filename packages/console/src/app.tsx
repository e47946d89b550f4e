/**
 * The console: sign-in until a key is known, then the layout and the router over the
 * routes table (./routes.tsx). A key kept in sessionStorage from earlier in this tab is
 * checked again on load.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import type { CurrentApiKey, Marquee } from '@marquee/sdk';
import { Layout } from './components/layout.tsx';
import { NotFound, routesOf } from './routes.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { clientFor, forgetApiKey, SessionContext, storeApiKey, storedApiKey, type Session } from './lib/session.ts';

type Signed = { client: Marquee; key: CurrentApiKey } | null;

/** After a navigation, focus moves to the new screen's content, as a page load would. */
function focusMain(): void {
  requestAnimationFrame(() => document.getElementById('main')?.focus({ preventScroll: false }));
}

export function App() {
  const [signed, setSigned] = useState<Signed | 'checking'>(() => (storedApiKey() === null ? null : 'checking'));

  useEffect(() => {
    const apiKey = storedApiKey();
    if (signed !== 'checking' || apiKey === null) return;
    const client = clientFor(apiKey);
    client.apiKey.get().then(
      (key) => setSigned({ client, key }),
      () => {
        forgetApiKey();
        setSigned(null);
      },
    );
  }, [signed]);

  const session = useMemo<Session | null>(() => {
    if (signed === null || signed === 'checking') return null;
    return {
      ...signed,
      canWrite: signed.key.scopes.includes('write'),
      signOut: () => {
        forgetApiKey();
        setSigned(null);
      },
    };
  }, [signed]);

  if (signed === 'checking') return <p class="loading">Checking your key…</p>;
  if (session === null)
    return (
      <SignIn
        onSignedIn={(apiKey, client, key) => {
          storeApiKey(apiKey);
          setSigned({ client, key });
        }}
      />
    );
  return (
    <SessionContext.Provider value={session}>
      <LocationProvider scope="/app">
        <Layout>
          <Router onRouteChange={focusMain}>
            {[
              ...routesOf(session.canWrite).map((r) => <Route key={r.path} path={r.path} component={r.component} />),
              <Route key="not-found" default component={NotFound} />,
            ]}
          </Router>
        </Layout>
      </LocationProvider>
    </SessionContext.Provider>
  );
}
