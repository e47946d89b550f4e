/**
 * The device's calls to /v1 (docs/door.md, "Door devices"), authenticated with its
 * device key (`Authorization: Bearer mqk_…`), through plain fetch: the app must tell a
 * request that got no answer (the device is offline: decide locally) from an answer
 * (the server decided, or refused), and a 401 (the key was revoked) from every other
 * refusal.
 */
import type { ApiTicket, CheckInScan, DoorDeviceSelf, DoorTicket, ListPage, ScanUpload } from './contract.ts';

/** The request got no answer: no network, the server unreachable, or too slow. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
}

/** The API answered with an error (an RFC 9457 problem, docs/errors.md). */
export class ApiRefusal extends Error {
  override name = 'ApiRefusal';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly param: string | undefined,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

export interface ApiOptions {
  /** The API's origin; '' in the browser (the console and /v1 share one). */
  baseUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

type Query = Record<string, string | number | undefined>;

async function call<T>(
  options: ApiOptions,
  method: 'GET' | 'POST',
  path: string,
  { key, query, body }: { key?: string; query?: Query; body?: unknown },
): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
  const url = `${options.baseUrl ?? ''}${path}${params.size > 0 ? `?${params}` : ''}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
  } catch (err) {
    throw new NoAnswer(err instanceof Error ? err.message : String(err), { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch (err) {
    // A proxy's error page, or the body cut on the way: no answer from Marquee.
    if (response.ok) throw new NoAnswer(`unreadable answer (${response.status})`, { cause: err });
    parsed = undefined;
  }
  if (!response.ok) {
    const problem = (parsed ?? {}) as { code?: string; detail?: string; param?: string };
    if (response.status >= 502 && response.status <= 504 && problem.code === undefined)
      throw new NoAnswer(`no answer from Marquee (${response.status})`);
    throw new ApiRefusal(
      response.status,
      problem.code ?? 'unknown',
      problem.detail ?? `The API answered ${response.status}.`,
      problem.param,
    );
  }
  return parsed as T;
}

/** POST /v1/device_claims: a pairing token for the device's key, once. No Authorization. */
export function claimDevice(
  token: string,
  options: ApiOptions = {},
): Promise<{ api_key: string; device: DoorDeviceSelf }> {
  return call(options, 'POST', '/v1/device_claims', { body: { token } });
}

export class DeviceApi {
  constructor(
    private readonly key: string,
    private readonly options: ApiOptions = {},
  ) {}

  door(): Promise<DoorDeviceSelf> {
    return call(this.options, 'GET', '/v1/door_device', { key: this.key });
  }

  doorTickets(query: { limit: number; updated_gte?: string; starting_after?: string }): Promise<ListPage<DoorTicket>> {
    return call(this.options, 'GET', '/v1/door_tickets', { key: this.key, query });
  }

  uploadCheckIns(scans: ScanUpload[]): Promise<ListPage<CheckInScan>> {
    return call(this.options, 'POST', '/v1/check_ins', { key: this.key, body: { data: scans } });
  }

  checkIns(query: {
    outcome?: CheckInScan['outcome'];
    received_gte?: string;
    limit?: number;
    starting_after?: string;
  }): Promise<ListPage<CheckInScan>> {
    return call(this.options, 'GET', '/v1/check_ins', { key: this.key, query });
  }

  /** GET /v1/tickets?serial_no= (or ticket_no=): a ticket the copy does not have yet. */
  async findTicket(lookup: { serial_no: string } | { ticket_no: string }): Promise<ApiTicket | undefined> {
    const page = await call<ListPage<ApiTicket>>(this.options, 'GET', '/v1/tickets', {
      key: this.key,
      query: { ...lookup, limit: 1 },
    });
    return page.data[0];
  }
}
