/**
 * The console: the one-time link pages (reset, invitation, set-up) for anyone; otherwise
 * the sign-in until a session is known, then the layout and the router over the routes
 * table (./routes.tsx). On load, GET /dashboard/v1/session says whether the browser's
 * session cookie is still good and gives its CSRF token again (it is kept in memory only).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { Layout } from './components/layout.tsx';
import { NotFound, PUBLIC_SCREENS, routesOf } from './routes.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { answer, dashboard, forgetSession, onSessionLost, rememberSession, type SessionBody } from './lib/dashboard.ts';
import { organizerOf } from './lib/organizer.ts';
import { SessionContext, sessionClient, type Session } from './lib/session.ts';

/** After a navigation, focus moves to the new screen's content, as a page load would. */
function focusMain(): void {
  requestAnimationFrame(() => document.getElementById('main')?.focus({ preventScroll: false }));
}

export function App() {
  return (
    <LocationProvider scope="/app">
      <Console />
    </LocationProvider>
  );
}

const fetchSession = () => answer(dashboard.GET('/dashboard/v1/session'));

function Console() {
  const { path, route } = useLocation();
  const [body, setBody] = useState<SessionBody | null | 'checking'>('checking');
  const client = useMemo(() => sessionClient(), []);

  const signedIn = useCallback((next: SessionBody) => setBody(rememberSession(next)), []);
  const signedOut = useCallback(() => {
    forgetSession();
    setBody(null);
  }, []);

  useEffect(() => {
    fetchSession().then(signedIn, signedOut);
  }, []);

  // A 401 while signed in: the session may have ended elsewhere. Asked once; gone means sign in again.
  const checking = useRef(false);
  useEffect(() => {
    onSessionLost(() => {
      if (checking.current) return;
      checking.current = true;
      fetchSession()
        .then(signedIn, signedOut)
        .finally(() => (checking.current = false));
    });
    return () => onSessionLost(undefined);
  }, []);

  const session = useMemo<Session | null>(() => {
    if (body === null || body === 'checking') return null;
    return {
      client,
      body,
      organizer: organizerOf(body),
      can: (permission) => body.permissions.includes(permission),
      update: signedIn,
      switchOrganizer: async (organizerId) => {
        signedIn(
          await answer(dashboard.POST('/dashboard/v1/session/organizer', { body: { organizer_id: organizerId } })),
        );
        route('/app/');
      },
      signOut: async (everywhere = false) => {
        try {
          await answer(
            dashboard.DELETE('/dashboard/v1/session', { params: { query: everywhere ? { everywhere: true } : {} } }),
          );
        } finally {
          signedOut();
          route('/app/');
        }
      },
    };
  }, [body]);

  const pathname = path.replace(/\/+$/, '');
  const Public = PUBLIC_SCREENS[pathname];
  if (Public)
    return (
      <Public
        onSignedIn={(next: SessionBody) => {
          signedIn(next);
          route('/app/');
        }}
      />
    );
  if (body === 'checking') return <p class="loading">Checking your session…</p>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  return (
    <SessionContext.Provider value={session}>
      <Layout>
        {/* Keyed by organizer: after a switch every screen mounts again and loads that organizer's data. */}
        <Router key={session.organizer.id} onRouteChange={focusMain}>
          {[
            ...routesOf(session.can).map((r) => <Route key={r.path} path={r.path} component={r.component} />),
            <Route key="not-found" default component={NotFound} />,
          ]}
        </Router>
      </Layout>
    </SessionContext.Provider>
  );
}
