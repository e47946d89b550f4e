/**
 * The dashboard's own operations (docs/dashboard.md): the session, the profile, the team
 * and the one-time links, through openapi-fetch typed by ../generated/dashboard.ts (made
 * by `npm run dashboard:generate --workspace @marquee/console` from the service's
 * /dashboard/v1/openapi.json). The /v1 operations mounted again under /dashboard/v1 go
 * through the SDK in its session mode instead (./session.ts).
 *
 * Both send the session cookie (HttpOnly: the page never sees it) and, on every POST,
 * PATCH and DELETE, the session's CSRF token as `x-csrf-token`. The token lives in this
 * module's memory only, never in storage: a reload asks GET /dashboard/v1/session again.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { MarqueeApiError, MarqueeConnectionError, type Problem } from '@marquee/sdk';
import type { paths } from '../generated/dashboard.ts';

/** The JSON body of an operation's answer with `status`, as the generated types say it. */
type JsonOf<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type SessionBody = JsonOf<'/dashboard/v1/session', 'get', 200>;
export type Permission = SessionBody['permissions'][number];
export type Role = SessionBody['role'];
export type Member = JsonOf<'/dashboard/v1/members/{id}', 'patch', 200>;
export type OwnSession = JsonOf<'/dashboard/v1/session/sessions', 'get', 200>['data'][number];
export type TotpEnrolment = JsonOf<'/dashboard/v1/profile/totp', 'post', 201>;
export type InvitationPreview = JsonOf<'/dashboard/v1/invitation', 'post', 200>;

let csrfToken: string | undefined;

/** The CSRF token of the current session, for the SDK's session mode. */
export const currentCsrfToken = (): string | undefined => csrfToken;

/** Keeps the token of a session body just received (sign-in, reload, switch, password change). */
export function rememberSession(body: SessionBody): SessionBody {
  csrfToken = body.csrf_token;
  return body;
}

export function forgetSession(): void {
  csrfToken = undefined;
}

let onUnauthorized: (() => void) | undefined;

/**
 * Called when a signed-in request is answered 401: the session ended elsewhere (idle or
 * absolute timeout, "Sign out everywhere", a password changed on another device).
 */
export function onSessionLost(handler: (() => void) | undefined): void {
  onUnauthorized = handler;
}

/**
 * The fetch of both clients: this origin only, with its cookie; a 401 while signed in is
 * reported (the app then checks the session once and shows the sign-in if it is gone).
 */
export const sessionFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, { ...init, credentials: 'same-origin' });
  if (response.status === 401 && csrfToken !== undefined) onUnauthorized?.();
  return response;
};

const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken !== undefined) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
};

export const dashboard = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  fetch: (request: Request) => sessionFetch(request),
});
dashboard.use(csrf);

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The answer's body, or the refusal thrown as the SDK's MarqueeApiError (so ErrorNotice
 * shows its detail and request id like any other), or MarqueeConnectionError for no answer.
 */
export async function answer<T>(call: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch (err) {
    throw new MarqueeConnectionError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  const { response } = outcome;
  if (response.ok) return outcome.data as T;
  const body = outcome.error;
  const problem: Problem =
    typeof body === 'object' && body !== null && 'detail' in body
      ? ({ status: response.status, ...body } as Problem)
      : {
          type: 'about:blank',
          title: response.statusText,
          status: response.status,
          detail: typeof body === 'string' && body !== '' ? body : response.statusText,
          code: 'unknown',
        };
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new MarqueeApiError(
    problem,
    response.headers.get('x-request-id') ?? undefined,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
  );
}

/** The code of an API refusal (`totp_required`, `last_owner`, …), or undefined. */
export const codeOf = (error: unknown): string | undefined =>
  error instanceof MarqueeApiError ? error.code : undefined;
