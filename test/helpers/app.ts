/**
 * A fresh app on a fresh database for one test file, with an injectable clock and
 * shortcuts for the calls every test makes (admin calls, an organizer with keys,
 * authenticated /v1 calls). Everything goes through HTTP via inject().
 */
import { after, before } from 'node:test';
import type { ErrorCode } from '../../src/errors/codes.ts';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './database.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface TestOrganizer {
  id: string;
  /** read + write key */
  key: string;
  readKey: string;
  writeKey: string;
}

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  clock: ManualClock;
  config: Readonly<Config>;
  /** An authenticated /v1 (or any) request with the given key. */
  api(
    key: string,
    method: Method,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** An /admin/v1 request with the admin token. */
  admin(method: Method, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  createOrganizer(settings?: Record<string, unknown>): Promise<TestOrganizer>;
  /** A user with an active membership, created through POST /admin/v1/users. */
  createUser(input: {
    organizerId: string;
    role: string;
    email?: string;
    password?: string;
    name?: string;
  }): Promise<TestUser>;
  /** Signs in through POST /dashboard/v1/session; throws unless it answers 201. */
  signIn(email: string, password: string, totp?: string): Promise<DashboardSession>;
  /** A /dashboard/v1 request of the session: its cookie, this service's Origin and, on writes, its CSRF token. */
  dash(
    session: DashboardSession,
    method: Method,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
}

export interface DashboardSession {
  /** `marquee_session=…`, for the cookie header. */
  cookie: string;
  csrf: string;
  body: Record<string, unknown>;
}

/** What a browser on the service's own page sends with a write: the service's origin. */
export const DASHBOARD_ORIGIN = 'http://localhost';

/** The session cookie a response sets, as a cookie header value. */
export function sessionCookieOf(res: LightMyRequestResponse): string {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.includes('marquee_session='));
  if (header === undefined) throw new Error(`no session cookie in ${JSON.stringify(res.headers['set-cookie'])}`);
  return header.split(';')[0]!;
}

let users = 0;

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  database?: TestDatabase;
  /** How to create the test database when `database` is not given. */
  databaseOptions?: TestDatabaseOptions;
  /** Extra buildApp options: a logger, a rate limiter or its Redis key prefix, idempotency settings. */
  appOptions?: Partial<Omit<BuildAppOptions, 'config' | 'database' | 'adminToken' | 'clock'>>;
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.database ?? (await createTestDatabase(opts.databaseOptions));
  const clock = opts.clock ?? new ManualClock(new Date());
  const config = loadConfig({
    ADMIN_TOKEN,
    RATE_LIMIT_PREAUTH_PER_MIN: '1000000',
    RATE_LIMIT_READ_PER_MIN: '1000000',
    RATE_LIMIT_WRITE_PER_MIN: '1000000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...opts.env,
  });
  const app = await buildApp({ ...opts.appOptions, config, database, adminToken: ADMIN_TOKEN, clock });
  await app.ready();

  const send = (method: Method, url: string, headers: Record<string, string>, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  const testApp: TestApp = {
    app,
    database,
    clock,
    config,
    api: (key, method, url, body, headers = {}) =>
      send(method, url, { authorization: `Bearer ${key}`, ...headers }, body),
    admin: (method, url, body) => send(method, url, { authorization: `Bearer ${ADMIN_TOKEN}` }, body),
    inject: (o) => app.inject(o),
    async createOrganizer(settings = {}) {
      const created = await testApp.admin('POST', '/admin/v1/organizers', { name: 'Test Organizer' });
      if (created.statusCode !== 201) throw new Error(`organizer create failed: ${created.body}`);
      const id = created.json().id as string;
      if (Object.keys(settings).length > 0) {
        const patched = await testApp.admin('PATCH', `/admin/v1/organizers/${id}`, settings);
        if (patched.statusCode !== 200) throw new Error(`organizer patch failed: ${patched.body}`);
      }
      const key = async (scopes: string[]) => {
        const res = await testApp.admin('POST', `/admin/v1/organizers/${id}/api_keys`, { scopes });
        if (res.statusCode !== 201) throw new Error(`api key create failed: ${res.body}`);
        return res.json().key as string;
      };
      return { id, key: await key(['read', 'write']), readKey: await key(['read']), writeKey: await key(['write']) };
    },
    async createUser(input) {
      const email = input.email ?? `person-${++users}-${Date.now()}@example.com`;
      const password = input.password ?? 'a long and unusual passphrase';
      const res = await testApp.admin('POST', '/admin/v1/users', {
        email,
        password,
        name: input.name ?? 'Test Person',
        organizer_id: input.organizerId,
        role: input.role,
      });
      if (res.statusCode !== 201) throw new Error(`user create failed: ${res.body}`);
      return { id: res.json().id as string, email, password };
    },
    async signIn(email, password, totp) {
      const res = await send(
        'POST',
        '/dashboard/v1/session',
        { origin: DASHBOARD_ORIGIN },
        { email, password, ...(totp === undefined ? {} : { totp }) },
      );
      if (res.statusCode !== 201) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
      return { cookie: sessionCookieOf(res), csrf: res.json().csrf_token as string, body: res.json() };
    },
    dash: (session, method, url, body, headers = {}) =>
      send(
        method,
        url,
        {
          cookie: session.cookie,
          origin: DASHBOARD_ORIGIN,
          ...(method === 'GET' ? {} : { 'x-csrf-token': session.csrf }),
          ...headers,
        },
        body,
      ),
    async close() {
      await app.close();
      if (!opts.database) await database.close();
    },
  };
  return testApp;
}

/**
 * The shared setup of a test file or `describe` block: `createTestApp(opts)` in a
 * `before` hook, closed in an `after` hook. The handle forwards to that app, so tests
 * use it as the TestApp itself (`t.api(...)`); touching it before the hook ran throws.
 */
export function useTestApp(opts: TestAppOptions = {}): TestApp {
  let current: TestApp | undefined;
  before(async () => {
    current = await createTestApp(opts);
  });
  after(async () => {
    await current?.close();
  });
  return forwardTo(() => current, 'useTestApp');
}

/** An organizer of `t` with its keys, created in a `before` hook after the app's. */
export function useOrganizer(t: TestApp, settings?: Record<string, unknown>): TestOrganizer {
  return useBefore(() => t.createOrganizer(settings), 'useOrganizer');
}

/**
 * A value `make` creates in a `before` hook (run after the hooks registered earlier, such
 * as useTestApp's), forwarded like useTestApp's handle.
 */
export function useBefore<T extends object>(make: () => Promise<T>, fixture: string): T {
  let current: T | undefined;
  before(async () => {
    current = await make();
  });
  return forwardTo(() => current, fixture);
}

/** A stand-in that reads every property from the value `get` returns at that moment. */
function forwardTo<T extends object>(get: () => T | undefined, fixture: string): T {
  const target = (): T => {
    const value = get();
    if (value === undefined) throw new Error(`${fixture}(): used before its before() hook ran`);
    return value;
  };
  return new Proxy({} as T, {
    get(_stub, property) {
      const value = target();
      const member: unknown = Reflect.get(value, property, value);
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(value) : member;
    },
    set(_stub, property, member) {
      return Reflect.set(target(), property, member);
    },
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_stub, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), property);
      return descriptor && { ...descriptor, configurable: true };
    },
    has: (_stub, property) => Reflect.has(target(), property),
  });
}

/** The problem body every error answers with: its code (docs/errors.md) and the field at fault. */
export function problemOf(status: number, detail: string, code: ErrorCode, param?: string) {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    409: 'Conflict',
    413: 'Payload Too Large',
    415: 'Unsupported Media Type',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    503: 'Service Unavailable',
  };
  return {
    type: 'about:blank',
    title: titles[status],
    status,
    detail,
    code,
    ...(param === undefined ? {} : { param }),
  };
}
