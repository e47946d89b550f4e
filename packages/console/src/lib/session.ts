/**
 * The signed-in person (docs/console.md, "Signing in"): the session body of
 * GET /dashboard/v1/session (user, memberships, the current organizer, role and
 * permissions) and the clients that act for them. The session itself is an HttpOnly
 * cookie the page never reads; its CSRF token is kept in memory (./dashboard.ts), and
 * nothing of it is written to sessionStorage, localStorage or a readable cookie.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { Marquee } from '@marquee/sdk';
import { currentCsrfToken, sessionFetch, type Permission, type SessionBody } from './dashboard.ts';

/**
 * A client for this origin's /dashboard/v1, where every /v1 operation is mounted again
 * with the session's authentication (docs/dashboard.md, "One operation, two surfaces").
 */
export function sessionClient(options: { maxRetries?: number; timeoutMs?: number } = {}): Marquee {
  return new Marquee({
    session: { csrfToken: currentCsrfToken },
    baseUrl: `${window.location.origin}/dashboard`,
    fetch: sessionFetch,
    maxRetries: 1,
    ...options,
  });
}

/** The organizer the session acts for: its id and name, and the money and clock of its catalog. */
export interface Organizer {
  id: string;
  name: string;
  /** ISO 4217 code of its prices and orders. */
  currency: string;
  /** IANA zone, the default of its events and the zone of times that belong to no event. */
  timezone: string;
}

export interface Session {
  /** The /v1 operations, through /dashboard/v1 with the session. */
  client: Marquee;
  /** The session body as the API last answered it. */
  body: SessionBody;
  organizer: Organizer;
  /** Whether the role in the current organizer holds the permission (docs/dashboard.md, "Roles and permissions"). */
  can: (permission: Permission) => boolean;
  /** Takes a session body the API answered (a profile change, a new password). */
  update: (body: SessionBody) => void;
  /** POST /dashboard/v1/session/organizer, then every screen loads again for that organizer. */
  switchOrganizer: (organizerId: string) => Promise<void>;
  /** DELETE /dashboard/v1/session (here, or `everywhere`), then the sign-in. */
  signOut: (everywhere?: boolean) => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession() outside a signed-in console');
  return session;
}
