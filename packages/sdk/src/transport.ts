/**
 * One HTTP exchange with the API, with the client's guarantees: the API key, JSON in and
 * out, an Idempotency-Key on every POST and PATCH that stays the same across the
 * client's own retries (until a replayed 5xx shows the key is spent: then its
 * deterministic successor), and retries with backoff on network errors, 429 and 503 that
 * honour `retry-after` (docs/sdk.md, "Idempotency and retries").
 *
 * Instead of an API key, a page of the service's own origin (the organizer console) may
 * use the signed-in person's session (docs/dashboard.md): `session` with `baseUrl`
 * `${origin}/dashboard`, so the resources' `/v1/...` paths reach `/dashboard/v1/...`.
 * Then no Authorization header is sent; the browser sends the HttpOnly session cookie
 * (`credentials: 'same-origin'`), and every POST, PATCH and DELETE carries the session's
 * CSRF token as `x-csrf-token`. Everything else (idempotency, retries, errors) is the same.
 */
import { MarqueeApiError, MarqueeConnectionError, type Problem } from './errors.ts';

/** The session mode's one input: the current session's CSRF token, read at each request. */
export interface SessionAuth {
  /** The `csrf_token` of the session body (GET /dashboard/v1/session); kept in memory by the caller. */
  csrfToken: () => string | undefined;
}

/** Either `apiKey` (`/v1`, any program) or `session` (`/dashboard/v1`, a page of the service's origin). */
export interface TransportOptions {
  /** The API key (`mqk_…`), sent as the bearer token. Required unless `session` is given. */
  apiKey?: string;
  /** Instead of `apiKey`: the browser's session cookie, and this CSRF token on writes. */
  session?: SessionAuth;
  /**
   * The service's origin, e.g. `https://tickets.example.com` (paths start with /v1); in
   * session mode, the dashboard's root: `${origin}/dashboard`.
   */
  baseUrl: string;
  /** Retries after the first attempt, for network errors, 429 and 503. Default 2. */
  maxRetries?: number;
  /** Per attempt, in milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (a proxy, a test double). */
  fetch?: typeof fetch;
  /** How the client waits between retries; replaceable in tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Makes an Idempotency-Key; default crypto.randomUUID(). */
  idempotencyKey?: () => string;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RequestOptions {
  /**
   * Your own Idempotency-Key for this POST or PATCH, instead of a generated one. After a
   * replayed 5xx the call moves on to `${key}:retry-1`, `${key}:retry-2`, … (docs/sdk.md).
   */
  idempotencyKey?: string;
}

const RETRIED_STATUSES = new Set([429, 503]);
/** The API refuses longer keys (docs/idempotency.md, rule 8). */
const MAX_KEY_LENGTH = 255;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Transport {
  readonly #options: Required<Omit<TransportOptions, 'fetch' | 'apiKey' | 'session'>> & { fetch: typeof fetch };
  /** How a request proves who sends it: the bearer key, or the session cookie and its CSRF token. */
  readonly #credentials: (method: string) => { headers: Record<string, string>; init: RequestInit };

  /**
   * With `anonymous`, no credential at all: for the API's public operations (a door
   * device's claim, which trades a pairing code for the device's key).
   */
  constructor(options: TransportOptions, { anonymous = false }: { anonymous?: boolean } = {}) {
    const { session } = options;
    if (!anonymous && session === undefined && !options.apiKey) throw new TypeError('Marquee: apiKey is required');
    if (!options.baseUrl) throw new TypeError('Marquee: baseUrl is required');
    if (anonymous) {
      this.#credentials = () => ({ headers: {}, init: {} });
    } else if (session !== undefined) {
      if (options.apiKey !== undefined) throw new TypeError('Marquee: apiKey and session are exclusive');
      this.#credentials = (method) => {
        const headers: Record<string, string> = {};
        const token = method === 'GET' ? undefined : session.csrfToken();
        if (token !== undefined) headers['x-csrf-token'] = token;
        return { headers, init: { credentials: 'same-origin' } };
      };
    } else {
      const authorization = `Bearer ${options.apiKey}`;
      this.#credentials = () => ({ headers: { authorization }, init: {} });
    }
    this.#options = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      sleep: options.sleep ?? defaultSleep,
      idempotencyKey: options.idempotencyKey ?? (() => globalThis.crypto.randomUUID()),
    };
  }

  /**
   * A GET whose answer is a file (the CSV exports, the PDF tickets): the Response as soon as its headers
   * arrive, its body unread, for the caller to stream (`response.body`) or read
   * (`response.text()`). Errors and retries are those of request(); `timeoutMs` bounds
   * the wait for the headers only, so a long download is not cut off.
   */
  async download(path: string, query?: Query, accept = 'text/csv'): Promise<Response> {
    const o = this.#options;
    const url = `${o.baseUrl}${path}${queryString(query)}`;
    const credentials = this.#credentials('GET');
    const headers = { ...credentials.headers, accept };
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(
        () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
        o.timeoutMs,
      );
      let response: Response;
      try {
        response = await o.fetch(url, { method: 'GET', headers, signal: controller.signal, ...credentials.init });
      } catch (err) {
        if (attempt < o.maxRetries) {
          await o.sleep(backoff(attempt));
          continue;
        }
        throw new MarqueeConnectionError(`GET ${path}: ${describe(err)}`, { cause: err });
      } finally {
        clearTimeout(timer);
      }
      if (RETRIED_STATUSES.has(response.status) && attempt < o.maxRetries) {
        await response.body?.cancel();
        await o.sleep(retryAfterMs(response.headers.get('retry-after')) ?? backoff(attempt));
        continue;
      }
      if (!response.ok) throw await apiError(response);
      return response;
    }
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    init: { query?: Query; body?: unknown } & RequestOptions = {},
  ): Promise<T> {
    const o = this.#options;
    const credentials = this.#credentials(method);
    const headers: Record<string, string> = { ...credentials.headers, accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    // One key for every attempt of this call: a retry after a lost answer is a replay.
    const idempotent = method === 'POST' || method === 'PATCH';
    const firstKey = idempotent ? (init.idempotencyKey ?? o.idempotencyKey()) : undefined;
    if (firstKey !== undefined) headers['idempotency-key'] = firstKey;
    let successors = 0;
    const url = `${o.baseUrl}${path}${queryString(init.query)}`;
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await o.fetch(url, {
          method,
          headers: { ...headers },
          body,
          signal: AbortSignal.timeout(o.timeoutMs),
          ...credentials.init,
        });
      } catch (err) {
        if (attempt < o.maxRetries) {
          await o.sleep(backoff(attempt));
          continue;
        }
        throw new MarqueeConnectionError(`${method} ${path}: ${describe(err)}`, { cause: err });
      }
      if (RETRIED_STATUSES.has(response.status) && attempt < o.maxRetries) {
        await response.body?.cancel();
        if (
          firstKey !== undefined &&
          response.status >= 500 &&
          response.headers.get('idempotent-replayed') === 'true'
        ) {
          // The key is spent: the API stored this 5xx and would replay it to every retry
          // with the key. The answer was stored earlier, so it says nothing about the
          // service now and the wait before that earlier attempt was already spent: the
          // successor goes at once.
          headers['idempotency-key'] = await successorKey(firstKey, ++successors);
          continue;
        }
        await o.sleep(retryAfterMs(response.headers.get('retry-after')) ?? backoff(attempt));
        continue;
      }
      if (!response.ok) throw await apiError(response);
      return (await response.json()) as T;
    }
  }
}

/**
 * The key a call moves on to after its key answered a replayed 5xx: `${key}:retry-1`,
 * then `${key}:retry-2`, … A function of the call's first key alone, so a caller who
 * passes their own key (an order id, for crash safety) and calls again after a crash
 * walks the same keys and gets their stored answers replayed. When the suffix would pass
 * 255 characters, the key is cut and a SHA-256 of the whole key (128 bits, hex) keeps two
 * long keys with a common prefix apart.
 */
async function successorKey(key: string, generation: number): Promise<string> {
  const suffix = `:retry-${generation}`;
  if (key.length + suffix.length <= MAX_KEY_LENGTH) return `${key}${suffix}`;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  const hash = Array.from(new Uint8Array(digest, 0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const tail = `:${hash}${suffix}`;
  return `${key.slice(0, MAX_KEY_LENGTH - tail.length)}${tail}`;
}

function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(name, item);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Exponential backoff with full jitter: up to 0.5 s, 1 s, 2 s, … capped at 8 s. */
function backoff(attempt: number): number {
  return Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
}

/** `retry-after` as milliseconds: delay-seconds or an HTTP date; capped at a minute. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

async function apiError(response: Response): Promise<MarqueeApiError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text();
  let problem: Problem;
  try {
    problem = JSON.parse(text) as Problem;
  } catch {
    problem = {
      type: 'about:blank',
      title: response.statusText,
      status: response.status,
      detail: text,
      code: 'unknown',
    };
  }
  return new MarqueeApiError(
    { ...problem, status: problem.status ?? response.status },
    requestId,
    retryAfterMs(response.headers.get('retry-after')),
  );
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
