/**
 * docs/errors.md's table of codes, held to what the service sends: for every row, one real
 * request provokes that code, and the answer's status and `param` are what the row says.
 * A row without a provoking request (or a request without a row) fails the test, so the
 * table and the service cannot drift apart. One app; the requests that break it (the
 * database closed, the process draining) run last.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { totpCodeAt } from '../../src/domain/people/totp.ts';
import { ADMIN_TOKEN, createTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { createEvent, eventBody } from '../helpers/catalog.ts';
import { BUYER, placeOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { exchangeUntilClosed, listenOnLoopback } from '../helpers/raw-http.ts';
import { keyInFlight, newKey, withKey } from '../idempotency/helpers.ts';

interface Row {
  code: string;
  status: number;
  /** The param column as written: `no`, a description, or names in backticks (`else no` when it may be absent). */
  param: string;
}

/** The codes table of docs/errors.md: | code | status | kind | when | param | what to do |. */
async function documentedRows(): Promise<Row[]> {
  const text = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => /^\| `[a-z_]+` \|/.test(line))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      assert.equal(cells.length, 6, `six columns: ${line}`);
      return { code: cells[0]!.replaceAll('`', ''), status: Number(cells[1]), param: cells[4]! };
    });
}

/**
 * Whether the param column allows what a response carried: `no` only absence; names in
 * backticks (`items.N.…` with N any position) those names, and absence when it says
 * `else no`; a description (`the missing field`) any present param.
 */
function columnAllows(column: string, param: string | undefined): boolean {
  if (column === 'no') return param === undefined;
  const names = [...column.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  if (names.length === 0) return param !== undefined;
  if (param === undefined) return /\belse no\b/.test(column);
  return names.some((name) => new RegExp(`^${name.replaceAll('.', '\\.').replaceAll('N', '\\d+')}$`).test(param));
}

/** What one provoking request got back: its status and problem body. */
interface Answer {
  status: number;
  body: { code?: string; param?: string };
}

/** A request that answers `code`, and the param it must carry (undefined: none). */
interface Provocation {
  param: string | undefined;
  send: () => Promise<Answer>;
}

/**
 * Codes no request to this service can provoke, each with why. Fastify answers
 * handler_timeout only for a route with a `handlerTimeout`, and the service sets none;
 * test/foundation/error-path.test.ts checks how the error handler maps it.
 */
const EXCLUDED: Record<string, string> = {
  handler_timeout: 'no route sets a Fastify handlerTimeout, so no request reaches FST_ERR_HANDLER_TIMEOUT',
};

/** The header that asks injectFault for a fault inside the request's transaction. */
const FAULT_HEADER = 'x-test-fault';

describe('the error-code table of docs/errors.md matches what the service sends', () => {
  let t: TestApp;
  let port: number;
  let sale: Sale;
  let owner: DashboardSession;
  let databaseClosed = false;

  before(async () => {
    t = await createTestApp({
      env: {
        HTTP_REQUEST_TIMEOUT: '1s',
        HTTP_HEADERS_TIMEOUT: '500ms',
        HTTP_KEEP_ALIVE_TIMEOUT: '300ms',
        RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '5',
        RATE_LIMIT_SIGNIN_IP_PER_MIN: '100000',
      },
      appOptions: { idempotency: { beforeExecute: injectFault } },
    });
    port = await listenOnLoopback(t.app);
    sale = await setupSale(t);
    owner = await signInAs('owner');
  });
  after(async () => {
    await t.app.close();
    if (!databaseClosed) await t.database.close();
  });

  /**
   * A database fault raised by the database itself, with the SQLSTATE the driver reports
   * for a statement timeout (57014) or a lock timeout (55P03); or a take-over of the
   * request's idempotency key (its lease token changed under it, as a retry that found the
   * lease expired does).
   */
  async function injectFault(request: FastifyRequest): Promise<void> {
    const fault = request.headers[FAULT_HEADER];
    if (fault === 'take-over') {
      const key = String(request.headers['idempotency-key']);
      await sql`UPDATE idempotency_keys SET lease_token = ${randomUUID()} WHERE key = ${key}`.execute(request.db);
    } else if (typeof fault === 'string' && /^[0-9A-Z]{5}$/.test(fault)) {
      await sql
        .raw(`DO $$ BEGIN RAISE EXCEPTION 'injected fault' USING ERRCODE = '${fault}'; END $$`)
        .execute(request.db);
    }
  }

  async function signInAs(role: string): Promise<DashboardSession> {
    const user = await t.createUser({ organizerId: sale.org.id, role });
    return t.signIn(user.email, user.password);
  }

  const answer = async (res: Promise<{ statusCode: number; json: () => unknown }>): Promise<Answer> => {
    const done = await res;
    return { status: done.statusCode, body: done.json() as Answer['body'] };
  };
  const raw = async (request: string): Promise<Answer> => {
    const res = await exchangeUntilClosed(port, request);
    return { status: Number(res.statusLine.split(' ')[1]), body: JSON.parse(res.body) as Answer['body'] };
  };
  const key = () => sale.org.key;
  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, headers?: Record<string, string>) =>
    answer(t.api(key(), method, url, body, headers));
  const signInRequest = (email: string, password: string, totp?: string) => ({
    method: 'POST' as const,
    url: '/dashboard/v1/session',
    headers: { origin: 'http://localhost', 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password, ...(totp === undefined ? {} : { totp }) }),
  });

  /** A user with two-factor authentication enrolled and confirmed, and its secret. */
  async function totpUser(): Promise<{ email: string; password: string; secret: string }> {
    const user = await t.createUser({ organizerId: sale.org.id, role: 'viewer' });
    const session = await t.signIn(user.email, user.password);
    const enrol = await t.dash(session, 'POST', '/dashboard/v1/profile/totp');
    const secret = enrol.json<{ secret: string }>().secret;
    const confirmed = await t.dash(session, 'POST', '/dashboard/v1/profile/totp/confirm', {
      code: totpCodeAt(secret, t.clock.now()),
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    return { ...user, secret };
  }

  /** A member's id in the team list, by e-mail. */
  async function memberIdOf(email: string): Promise<string> {
    const members = (await t.dash(owner, 'GET', '/dashboard/v1/members')).json<{
      data: { id: string; email: string }[];
    }>();
    return members.data.find((m) => m.email === email)!.id;
  }

  /** Every code of the table, and the request that provokes it. */
  const provocations: Record<string, Provocation> = {
    invalid_request: {
      param: undefined,
      send: () =>
        answer(
          t.inject({
            method: 'POST',
            url: '/admin/v1/organizers',
            headers: {
              authorization: `Bearer ${ADMIN_TOKEN}`,
              'content-type': 'application/json',
              'content-length': '5',
            },
            payload: '{"name":"x"}',
          }),
        ),
    },
    invalid_json: { param: undefined, send: () => api('POST', '/v1/events', '{"title":') },
    parameter_missing: { param: 'name', send: () => answer(t.admin('POST', '/admin/v1/organizers', {})) },
    parameter_unknown: {
      param: 'extra',
      send: () => answer(t.admin('POST', '/admin/v1/organizers', { name: 'x', extra: 1 })),
    },
    parameter_invalid: {
      param: 'created_lt',
      send: () => api('GET', '/v1/orders?created_gte=2030-06-30T19:30:00Z&created_lt=2030-06-30T19:30:00Z'),
    },
    empty_update: { param: undefined, send: () => api('PATCH', `/v1/events/${sale.event.id}`, {}) },
    invalid_cursor: { param: 'starting_after', send: () => api('GET', `/v1/orders?starting_after=${randomUUID()}`) },
    not_on_sale: {
      param: 'items.0.ticket_type_id',
      async send() {
        const other = await createEvent(t, key());
        const item = { performance_id: sale.performanceId, ticket_type_id: other.ticket_types[0]!.id, quantity: 1 };
        return api('POST', '/v1/orders', { items: [item], buyer: BUYER, tender: 'cash' });
      },
    },
    insufficient_inventory: {
      param: undefined,
      async send() {
        const small = await setupSale(t, {
          org: sale.org,
          event: {
            performances: [{ starts_at: new Date(t.clock.now().getTime() + 86_400_000).toISOString(), capacity: 1 }],
          },
        });
        const item = { performance_id: small.performanceId, ticket_type_id: small.ticketTypeId, quantity: 2 };
        return api('POST', '/v1/orders', { items: [item], buyer: BUYER, tender: 'cash' });
      },
    },
    limit_reached: {
      param: 'ticket_types',
      async send() {
        const types = Array.from({ length: 20 }, (_, i) => ({ name: `Type ${i}`, price_minor: 100 }));
        const full = await createEvent(t, key(), { ticket_types: types });
        return answer(
          t.dash(owner, 'POST', `/dashboard/v1/events/${full.id}/ticket_types`, {
            ticket_types: [{ name: 'One more', price_minor: 100 }],
          }),
        );
      },
    },
    idempotency_key_invalid: {
      param: undefined,
      send: () => api('POST', '/v1/events', eventBody(t), { 'idempotency-key': 'k'.repeat(256) }),
    },
    password_too_weak: {
      param: 'new_password',
      async send() {
        const user = await t.createUser({ organizerId: sale.org.id, role: 'viewer' });
        const session = await t.signIn(user.email, user.password);
        return answer(
          t.dash(session, 'POST', '/dashboard/v1/profile/password', {
            current_password: user.password,
            new_password: 'password1234',
          }),
        );
      },
    },
    link_invalid: {
      param: 'token',
      send: () =>
        answer(
          t.inject({
            method: 'POST',
            url: '/dashboard/v1/password_resets/complete',
            headers: { origin: 'http://localhost', 'content-type': 'application/json' },
            payload: JSON.stringify({ token: 'x'.repeat(43), password: 'a long and unusual passphrase' }),
          }),
        ),
    },
    unauthorized: { param: undefined, send: () => answer(t.inject({ method: 'GET', url: '/v1/orders' })) },
    totp_required: {
      param: 'totp',
      async send() {
        const user = await totpUser();
        return answer(t.inject(signInRequest(user.email, user.password)));
      },
    },
    totp_invalid: {
      param: 'totp',
      async send() {
        const user = await totpUser();
        const now = t.clock.now().getTime();
        const near = new Set([-2, -1, 0, 1, 2].map((k) => totpCodeAt(user.secret, new Date(now + k * 30_000))));
        const wrong = ['000000', '111111', '222222', '333333', '444444', '555555'].find((c) => !near.has(c))!;
        return answer(t.inject(signInRequest(user.email, user.password, wrong)));
      },
    },
    forbidden_scope: {
      param: undefined,
      send: () => answer(t.api(sale.org.readKey, 'POST', '/v1/events', eventBody(t))),
    },
    role_forbidden: {
      param: 'refund',
      async send() {
        const order = await placeOrder(t, sale);
        const boxOffice = await signInAs('box_office');
        return answer(t.dash(boxOffice, 'POST', `/dashboard/v1/orders/${order.id}/refund`, {}));
      },
    },
    csrf_failed: {
      param: undefined,
      send: () =>
        answer(t.dash(owner, 'POST', `/dashboard/v1/events/${sale.event.id}/publish`, {}, { 'x-csrf-token': 'wrong' })),
    },
    no_membership: {
      param: undefined,
      async send() {
        const user = await t.createUser({ organizerId: sale.org.id, role: 'viewer' });
        const removed = await t.dash(owner, 'DELETE', `/dashboard/v1/members/${await memberIdOf(user.email)}`);
        assert.equal(removed.statusCode, 204, removed.body);
        return answer(t.inject(signInRequest(user.email, user.password)));
      },
    },
    unknown_endpoint: { param: undefined, send: () => api('GET', '/v1/no_such_thing') },
    resource_not_found: { param: undefined, send: () => api('GET', `/v1/orders/${randomUUID()}`) },
    resource_exists: {
      param: undefined,
      send: () => api('POST', '/v1/events', eventBody(t, { title: sale.event.title })),
    },
    invalid_state: {
      param: undefined,
      send: () => answer(t.dash(owner, 'POST', `/dashboard/v1/events/${sale.event.id}/publish`, {})),
    },
    concurrent_modification: {
      param: undefined,
      async send() {
        // A check-in that commits between the refund's read and its update: the update
        // finds the ticket no longer purchased. A trigger makes the update skip the row.
        const order = await placeOrder(t, sale);
        await sql
          .raw(
            `CREATE FUNCTION skip_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
             CREATE TRIGGER checked_in_meanwhile BEFORE UPDATE ON tickets FOR EACH ROW
               WHEN (NEW.order_id = '${order.id}' AND NEW.status = 'refunded') EXECUTE FUNCTION skip_row();`,
          )
          .execute(t.database.db);
        try {
          return await answer(t.dash(owner, 'POST', `/dashboard/v1/orders/${order.id}/refund`, {}));
        } finally {
          await sql
            .raw('DROP TRIGGER checked_in_meanwhile ON tickets; DROP FUNCTION skip_row();')
            .execute(t.database.db);
        }
      },
    },
    idempotency_key_reused: {
      param: undefined,
      async send() {
        const idemKey = newKey();
        assert.equal((await api('POST', '/v1/events', eventBody(t), withKey(idemKey))).status, 201);
        return api('POST', '/v1/events', eventBody(t), withKey(idemKey));
      },
    },
    idempotency_key_in_flight: {
      param: undefined,
      async send() {
        const body = eventBody(t);
        const { key: idemKey, held } = await keyInFlight(t, { organizerId: sale.org.id, rawApiKey: key(), body });
        try {
          return await api('POST', '/v1/events', body, withKey(idemKey));
        } finally {
          held?.end();
        }
      },
    },
    idempotency_key_lease_lost: {
      param: undefined,
      send: () => api('POST', '/v1/events', eventBody(t), { ...withKey(newKey()), [FAULT_HEADER]: 'take-over' }),
    },
    last_owner: {
      param: undefined,
      async send() {
        const self = (await t.dash(owner, 'GET', '/dashboard/v1/session')).json<{ user: { email: string } }>();
        const id = await memberIdOf(self.user.email);
        return answer(t.dash(owner, 'PATCH', `/dashboard/v1/members/${id}`, { role: 'manager' }));
      },
    },
    payload_too_large: {
      param: undefined,
      send: () => api('POST', '/v1/events', { title: 'x'.repeat(1024 * 1024 + 1) }),
    },
    headers_too_large: {
      param: undefined,
      send: () => raw(`GET /v1/events HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20 * 1024)}\r\n\r\n`),
    },
    unsupported_media_type: {
      param: undefined,
      send: () => api('POST', '/v1/events', 'title=x', { 'content-type': 'text/plain' }),
    },
    expectation_unsupported: {
      param: undefined,
      send: () => raw('GET /healthz HTTP/1.1\r\nhost: x\r\nexpect: tea\r\n\r\n'),
    },
    // Headers that never end: cut at HTTP_HEADERS_TIMEOUT.
    request_timeout: { param: undefined, send: () => raw('GET /healthz HTTP/1.1\r\nhost: x\r\n') },
    rate_limited: {
      param: undefined,
      async send() {
        const email = `nobody-${randomUUID()}@example.com`;
        for (let i = 0; i < 5; i++) await t.inject(signInRequest(email, 'a wrong passphrase'));
        return answer(t.inject(signInRequest(email, 'a wrong passphrase')));
      },
    },
    database_overloaded: {
      param: undefined,
      send: () => api('POST', '/v1/events', eventBody(t), { ...withKey(newKey()), [FAULT_HEADER]: '57014' }),
    },
    resource_busy: {
      param: undefined,
      send: () => api('POST', '/v1/events', eventBody(t), { ...withKey(newKey()), [FAULT_HEADER]: '55P03' }),
    },
    // The last three break the app: the database goes away, then the process drains.
    internal_error: {
      param: undefined,
      async send() {
        await t.database.close();
        databaseClosed = true;
        return answer(t.admin('GET', `/admin/v1/organizers/${sale.org.id}`));
      },
    },
    database_unavailable: { param: undefined, send: () => answer(t.inject({ method: 'GET', url: '/readyz' })) },
    shutting_down: {
      param: undefined,
      async send() {
        t.app.deps.shutdown.beginDraining();
        return answer(t.inject({ method: 'GET', url: '/readyz' }));
      },
    },
  };
  /** These run in this order, after every other provocation. */
  const LAST = ['internal_error', 'database_unavailable', 'shutting_down'];

  test('every row has a provoking request or a stated exclusion, and nothing else does', async () => {
    const codes = (await documentedRows()).map((row) => row.code).sort();
    assert.deepEqual([...Object.keys(provocations), ...Object.keys(EXCLUDED)].sort(), codes);
    assert.deepEqual(Object.keys(EXCLUDED), ['handler_timeout']);
  });

  test("each code's status and param are what its row says", async () => {
    const rows = await documentedRows();
    const ordered = [
      ...rows.filter((row) => !LAST.includes(row.code)),
      ...LAST.map((code) => rows.find((row) => row.code === code)!),
    ];
    for (const row of ordered) {
      const provocation = provocations[row.code];
      if (provocation === undefined) continue; // EXCLUDED, checked above
      assert.ok(
        columnAllows(row.param, provocation.param),
        `${row.code}: the table's param column (${row.param}) does not allow ${String(provocation.param)}`,
      );
      const { status, body } = await provocation.send();
      const seen = `${row.code}: ${status} ${JSON.stringify(body)}`;
      assert.deepEqual([body.code, status], [row.code, row.status], seen);
      assert.equal(body.param, provocation.param, seen);
    }
  });
});
