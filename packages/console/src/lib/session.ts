/**
 * The signed-in key. It lives in sessionStorage only (docs/console.md, "The API key"): gone
 * when the tab closes, never in a cookie, never sent anywhere but as the SDK's bearer
 * header to this origin's /v1.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { Marquee, type CurrentApiKey } from '@marquee/sdk';

const STORAGE_KEY = 'marquee.console.apiKey';

export function storedApiKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeApiKey(apiKey: string): void {
  sessionStorage.setItem(STORAGE_KEY, apiKey);
}

export function forgetApiKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** A client for this origin's API; the console is served by the same Marquee it talks to. */
export function clientFor(apiKey: string): Marquee {
  return new Marquee({ apiKey, baseUrl: window.location.origin, maxRetries: 1 });
}

export interface Session {
  client: Marquee;
  /** The key as GET /v1/api_key describes it: scopes and organizer. */
  key: CurrentApiKey;
  /** False for a read-only key: every write action is hidden. */
  canWrite: boolean;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession() outside a signed-in console');
  return session;
}
