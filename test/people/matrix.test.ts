/**
 * The permission matrix (docs/dashboard.md, "Roles and permissions"), walked cell by cell
 * through HTTP: every role against every signed-in operation of /dashboard/v1, as its
 * OpenAPI document lists them. A denied cell is exactly the 403 `role_forbidden` naming
 * the permission; an allowed cell is anything but a refusal of the role. The table in the
 * docs is the one printed from PERMISSIONS, and the operations of the document are
 * exactly those of OPERATION_PERMISSIONS.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';
import {
  judge,
  OPERATION_PERMISSIONS,
  PERMISSIONS,
  ROLES,
  type Permission,
  type Role,
} from '../../src/domain/people/permissions.ts';
import { problemOf, useOrganizer, useTestApp, type DashboardSession, type Method } from '../helpers/app.ts';

interface Operation {
  method: Method;
  path: string;
  operationId: string;
}

interface OpenApiOperation {
  operationId?: string;
  security?: unknown[];
}

const HTTP_METHODS = new Set(['get', 'post', 'patch', 'delete', 'put']);

/**
 * Valid bodies of operations on a made-up id: past the guard, they reach the domain and
 * answer 404 `resource_not_found`, which shows the route exists where the document says.
 */
const VALID_BODIES: Record<string, unknown> = {
  addPerformances: { performances: [{ starts_at: '2030-01-01T19:00:00Z', capacity: 1 }] },
  addTicketTypes: { ticket_types: [{ name: 'Matrix', price_minor: 100 }] },
  createQuestion: { key: 'matrix', label: 'Matrix', type: 'text' },
  updateQuestion: { label: 'Matrix' },
  createHold: { kind: 'allocation', quantity: 1 },
  resendTickets: {},
  settleRefund: { status: 'refunded' },
};

/** The request that exercises an operation's guard: ids made up, a body that may not validate. */
function requestOf(op: Operation): { url: string; body?: unknown } {
  const url = op.path.replace(/\{[^}]+\}/g, () => randomUUID());
  if (op.method === 'GET' || op.method === 'DELETE') return { url };
  return { url, body: VALID_BODIES[op.operationId] ?? {} };
}

function refusal(role: Role, needs: Permission) {
  return problemOf(
    403,
    `Your role (${role}) does not include the \`${needs}\` permission this operation needs. An owner can change your role.`,
    'role_forbidden',
    needs,
  );
}

describe('the permission matrix', () => {
  const t = useTestApp();
  const org = useOrganizer(t);
  const users = {} as Record<Role, { email: string; password: string }>;
  const sessions = {} as Record<Role, DashboardSession>;
  let operations: Operation[] = [];
  let publicOperations: string[] = [];

  before(async () => {
    for (const role of ROLES) {
      users[role] = await t.createUser({ organizerId: org.id, role, email: `matrix-${role}@example.com` });
      sessions[role] = await t.signIn(users[role].email, users[role].password);
    }
    const doc = await t.inject({ method: 'GET', url: '/dashboard/v1/openapi.json' });
    assert.equal(doc.statusCode, 200);
    const paths = doc.json().paths as Record<string, Record<string, OpenApiOperation>>;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!HTTP_METHODS.has(method)) continue;
        assert.ok(operation.operationId, `${method} ${path} has an operationId`);
        if (Array.isArray(operation.security) && operation.security.length === 0) {
          publicOperations.push(operation.operationId);
          continue;
        }
        operations.push({ method: method.toUpperCase() as Method, path, operationId: operation.operationId });
      }
    }
    operations = operations.sort((a, b) => a.operationId.localeCompare(b.operationId));
    publicOperations = publicOperations.sort();
  });

  test('the document lists every operation of the matrix, and the matrix every operation of the document', () => {
    const documented = operations.map((op) => op.operationId);
    assert.equal(new Set(documented).size, documented.length, 'each operationId once');
    assert.deepEqual(documented, Object.keys(OPERATION_PERMISSIONS).sort());
    // The public ones are the sign-in and the one-time links: no session, so no role.
    assert.deepEqual(publicOperations, [
      'acceptInvitation',
      'completePasswordReset',
      'previewInvitation',
      'requestPasswordReset',
      'setUpOwner',
      'signIn',
    ]);
    for (const op of operations) assert.ok(op.path.startsWith('/dashboard/v1/'), op.path);
  });

  for (const role of ROLES) {
    test(`every operation, as ${role}`, async () => {
      let denied = 0;
      for (const op of operations) {
        const verdict = judge(role, OPERATION_PERMISSIONS[op.operationId]!);
        // Signing out ends the session it is sent with: that cell gets a session of its own.
        const session =
          op.operationId === 'signOut' ? await t.signIn(users[role].email, users[role].password) : sessions[role];
        const { url, body } = requestOf(op);
        const res = await t.dash(session, op.method, url, body);
        const cell = `${role} × ${op.operationId} (${op.method} ${url}): ${res.statusCode} ${res.body}`;
        if (verdict.allowed) {
          assert.ok(![401, 403].includes(res.statusCode) && res.statusCode < 500, cell);
          // The route exists where the document says: past the guard, not an unknown path.
          if (res.statusCode === 404) assert.equal(res.json().code, 'resource_not_found', cell);
          if (op.operationId in VALID_BODIES) assert.equal(res.statusCode, 404, cell);
        } else {
          denied++;
          assert.equal(res.statusCode, 403, cell);
          assert.deepEqual(res.json(), refusal(role, verdict.needs), cell);
        }
      }
      const expectedDenied = operations.filter((op) => !judge(role, OPERATION_PERMISSIONS[op.operationId]!).allowed);
      assert.equal(denied, expectedDenied.length);
      // The session survived the walk (only signOut's own session ended).
      assert.equal((await t.dash(sessions[role], 'GET', '/dashboard/v1/session')).statusCode, 200);
    });
  }

  test('a door user reaches the own session and profile, and the door screen only', () => {
    const signedIn = Object.keys(OPERATION_PERMISSIONS).filter((id) => OPERATION_PERMISSIONS[id] === 'signed_in');
    const door = operations
      .filter((op) => judge('door', OPERATION_PERMISSIONS[op.operationId]!).allowed)
      .map((op) => op.operationId)
      .filter((id) => !signedIn.includes(id));
    assert.deepEqual(door, [
      'checkInTicket',
      'getEvent',
      'getOrder',
      'getPerformance',
      'getTicket',
      'listEventPerformances',
      'listEvents',
      'listTickets',
    ]);
  });

  test('the refusal names the first permission of a door lookup, and a door user reaches the lookups', async () => {
    // listEvents opens to read or check_in: a door user (check_in only) reads the list.
    const list = await t.dash(sessions.door, 'GET', '/dashboard/v1/events');
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json(), { object: 'list', has_more: false, data: [] });
    // listOrders needs read, which door lacks.
    const orders = await t.dash(sessions.door, 'GET', '/dashboard/v1/orders');
    assert.deepEqual([orders.statusCode, orders.json()], [403, refusal('door', 'read')]);
    // viewer holds read but not check_in: the check-in refusal names check_in.
    const checkIn = await t.dash(sessions.viewer, 'POST', `/dashboard/v1/tickets/${randomUUID()}/check_in`, {});
    assert.deepEqual([checkIn.statusCode, checkIn.json()], [403, refusal('viewer', 'check_in')]);
  });

  test('docs/dashboard.md prints the table of PERMISSIONS', async () => {
    const markdown = await readFile(new URL('../../docs/dashboard.md', import.meta.url), 'utf8');
    const start = '<!-- permissions-matrix:start -->\n';
    const end = '<!-- permissions-matrix:end -->';
    const from = markdown.indexOf(start);
    const to = markdown.indexOf(end);
    assert.ok(from >= 0 && to > from, 'the markers are there, in order');
    const printed = markdown.slice(from + start.length, to);
    const generated = [
      `| permission | what it allows | ${ROLES.join(' | ')} |`,
      `|---|---|${ROLES.map(() => '---|').join('')}`,
      ...(Object.entries(PERMISSIONS) as [Permission, { allows: string; roles: readonly Role[] }][]).map(
        ([permission, row]) =>
          `| \`${permission}\` | ${row.allows} | ${ROLES.map((role) => (row.roles.includes(role) ? '✔' : '—')).join(' | ')} |`,
      ),
      '',
    ].join('\n');
    assert.equal(printed, generated);
  });
});
