/**
 * The frame of every signed-in screen: the navigation from the routes table (the role's
 * screens only), the organizer (a switcher when the person belongs to more than one),
 * the person's name and role, the profile and sign-out.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ErrorNotice } from './error-notice.tsx';
import { useSession } from '../lib/session.ts';
import { roleLabel } from '../lib/roles.ts';
import { navigationOf } from '../routes.tsx';

export function Layout({ children }: { children: ComponentChildren }) {
  const { body, organizer, can, signOut, switchOrganizer } = useSession();
  const { path } = useLocation();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const switchTo = async (organizerId: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await switchOrganizer(organizerId);
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Marquee</span>
        <nav aria-label="Main">
          <ul>
            {navigationOf(can).map((route) => (
              <li key={route.path}>
                <a href={route.path} aria-current={path.startsWith(route.path) ? 'page' : undefined}>
                  {route.nav}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {body.memberships.length > 1 ? (
            <label class="organizer-switch">
              <span class="visually-hidden">Organizer</span>
              <select value={organizer.id} disabled={busy} onChange={(e) => void switchTo(e.currentTarget.value)}>
                {body.memberships.map((m) => (
                  <option key={m.organizer_id} value={m.organizer_id}>
                    {m.organizer_name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span class="organizer">{organizer.name}</span>
          )}
          <span class="badge">{roleLabel(body.role)}</span>
          <span class="user">{body.user.name}</span>
          <a href="/app/profile" aria-current={path === '/app/profile' ? 'page' : undefined}>
            Profile
          </a>
          <button type="button" class="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {error !== undefined && (
        <div class="top-error">
          <ErrorNotice error={error} />
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
