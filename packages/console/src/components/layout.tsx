/** The frame of every signed-in screen: the organizer, the navigation from the routes table, sign-out. */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useSession } from '../lib/session.ts';
import { navigationOf } from '../routes.tsx';

export function Layout({ children }: { children: ComponentChildren }) {
  const { key, canWrite, signOut } = useSession();
  const { path } = useLocation();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Marquee</span>
        <nav aria-label="Main">
          <ul>
            {navigationOf(canWrite).map((route) => (
              <li key={route.path}>
                <a href={route.path} aria-current={path.startsWith(route.path) ? 'page' : undefined}>
                  {route.nav}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{key.organizer.name}</span>
          {!canWrite && <span class="badge">Read-only key</span>}
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
