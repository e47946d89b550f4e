/**
 * The audit log (docs/dashboard.md, "Audit log"): the exact entry each kind of write
 * leaves (a signed-in person, an API key, the operator, a sign-in), nothing for a refused
 * request, once for an idempotent replay, nothing when the change's commit fails, and
 * never a secret. On both engines.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { useOrganizer, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf } from '../helpers/catalog.ts';
import { BUYER, placeOrder, setupSale } from '../helpers/orders.ts';
import { mailOf, post, UNTHROTTLED, UUID } from '../helpers/people.ts';

type Entry = Record<string, unknown> & { id: string };

interface Owner {
  id: string;
  email: string;
  session: DashboardSession;
}

async function ownerOf(t: TestApp, organizerId: string, role = 'owner'): Promise<Owner> {
  const user = await t.createUser({ organizerId, role });
  return { id: user.id, email: user.email, session: await t.signIn(user.email, user.password) };
}

/** The entries the owner's log lists for this query, newest first, each id checked and dropped. */
async function logOf(t: TestApp, owner: Owner, query: string): Promise<Record<string, unknown>[]> {
  const res = await t.dash(owner.session, 'GET', `/dashboard/v1/audit_log?${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data as Entry[]).map(({ id, ...rest }) => {
    assert.match(id, UUID);
    return rest;
  });
}

/** The entry a response's request should have left (its request id, now, from inject's defaults). */
function expected(
  t: TestApp,
  res: LightMyRequestResponse,
  e: {
    organizerId: string;
    actor: { type: string; id: string | null; label: string };
    action: string;
    target: { type: string; id: string | null };
    changes?: Record<string, { before: unknown; after: unknown }>;
  },
) {
  return {
    object: 'audit_entry',
    occurred_at: t.clock.now().toISOString(),
    organizer_id: e.organizerId,
    actor: e.actor,
    action: e.action,
    target: e.target,
    changes: e.changes ?? {},
    ip: '127.0.0.1',
    user_agent: 'lightMyRequest',
    request_id: res.headers['x-request-id'],
  };
}

const tick = (t: TestApp) => t.clock.advance(1000);

describe('the audit log: what each write records', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('a signed-in owner edits an event title: exactly one entry with the changed field', async () => {
    const owner = await ownerOf(t, org.id);
    const event = await createEvent(t, org.key, { title: 'Alpha' });
    tick(t);
    const res = await t.dash(owner.session, 'PATCH', `/dashboard/v1/events/${event.id}`, { title: 'Bravo' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await logOf(t, owner, `target_id=${event.id}&action=updateEvent`), [
      expected(t, res, {
        organizerId: org.id,
        actor: { type: 'user', id: owner.id, label: owner.email },
        action: 'updateEvent',
        target: { type: 'event', id: event.id },
        changes: {
          title: { before: 'Alpha', after: 'Bravo' },
          translations: {
            before: [{ locale: 'en', title: 'Alpha', description: null }],
            after: [{ locale: 'en', title: 'Bravo', description: null }],
          },
        },
      }),
    ]);
  });

  test('an API key places an order: actor api_key, the created order`s fields', async () => {
    const owner = await ownerOf(t, org.id);
    const sale = await setupSale(t, { org });
    tick(t);
    const res = await t.api(org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 2 }],
      buyer: BUYER,
      tender: 'pay_later',
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json();
    const keyId = (await t.api(org.key, 'GET', '/v1/api_key')).json().id as string;
    const preview = org.key.slice(0, 10);
    assert.deepEqual(await logOf(t, owner, `target_id=${order.id}`), [
      expected(t, res, {
        organizerId: org.id,
        actor: { type: 'api_key', id: keyId, label: preview },
        action: 'createOrder',
        target: { type: 'order', id: order.id },
        changes: {
          order_no: { before: null, after: order.order_no },
          status: { before: null, after: 'unpaid' },
          channel: { before: null, after: 'box_office' },
          tender: { before: null, after: 'pay_later' },
          buyer_first_name: { before: null, after: 'Ada' },
          buyer_last_name: { before: null, after: 'Lovelace' },
          buyer_email: { before: null, after: 'ada@example.test' },
          buyer_phone: { before: null, after: '+44 20 7946 0000' },
          currency: { before: null, after: 'EUR' },
          total_minor: { before: null, after: 5000 },
        },
      }),
    ]);
  });

  test('settle, refund, transfer, cancel and publish: the fields each changed', async () => {
    const owner = await ownerOf(t, org.id);
    const user = { type: 'user', id: owner.id, label: owner.email };
    /** The log lists exactly the entry this response's request left. */
    const onlyEntry = async (
      res: LightMyRequestResponse,
      action: string,
      target: { type: string; id: string },
      changes: Record<string, { before: unknown; after: unknown }>,
      query = `action=${action}`,
    ) =>
      assert.deepEqual(await logOf(t, owner, query), [
        expected(t, res, { organizerId: org.id, actor: user, action, target, changes }),
      ]);
    const sale = await setupSale(t, { org });
    const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
    tick(t);
    const settled = await t.dash(owner.session, 'POST', `/dashboard/v1/orders/${unpaid.id}/settle`, {});
    assert.equal(settled.statusCode, 200, settled.body);
    await onlyEntry(
      settled,
      'settleOrder',
      { type: 'order', id: unpaid.id },
      {
        status: { before: 'unpaid', after: 'placed' },
        paid_at: { before: null, after: t.clock.now().toISOString() },
      },
      `action=settleOrder&target_id=${unpaid.id}`,
    );

    const order = await placeOrder(t, sale, {}, 3);
    const tickets = (await t.api(org.key, 'GET', `/v1/tickets?order_id=${order.id}`)).json().data as { id: string }[];
    tick(t);
    const refund = await t.dash(owner.session, 'POST', `/dashboard/v1/orders/${order.id}/refund`, {
      ticket_ids: [tickets[0]!.id],
    });
    assert.equal(refund.statusCode, 201, refund.body);
    await onlyEntry(
      refund,
      'refundOrder',
      { type: 'refund', id: refund.json().id },
      {
        order_id: { before: null, after: order.id },
        mode: { before: null, after: 'cash' },
        status: { before: null, after: 'refunded' },
        amount_minor: { before: null, after: 2500 },
        currency: { before: null, after: 'EUR' },
        ticket_count: { before: null, after: 1 },
        settled_at: { before: null, after: t.clock.now().toISOString() },
      },
    );

    tick(t);
    const moved = await t.dash(owner.session, 'POST', `/dashboard/v1/tickets/${tickets[1]!.id}/transfer`, {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.test',
    });
    assert.equal(moved.statusCode, 200, moved.body);
    await onlyEntry(
      moved,
      'transferTicket',
      { type: 'ticket', id: tickets[1]!.id },
      {
        holder_first_name: { before: 'Ada', after: 'Grace' },
        holder_last_name: { before: 'Lovelace', after: 'Hopper' },
        holder_email: { before: 'ada@example.test', after: 'grace@example.test' },
        transferred_at: { before: null, after: t.clock.now().toISOString() },
      },
    );

    tick(t);
    const cancelled = await t.dash(owner.session, 'POST', `/dashboard/v1/orders/${order.id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    await onlyEntry(
      cancelled,
      'cancelOrder',
      { type: 'order', id: order.id },
      {
        status: { before: 'placed', after: 'cancelled' },
        cancelled_at: { before: null, after: t.clock.now().toISOString() },
      },
    );

    const draft = await createEvent(t, org.key, { publish: false });
    tick(t);
    const published = await t.dash(owner.session, 'POST', `/dashboard/v1/events/${draft.id}/publish`);
    assert.equal(published.statusCode, 200, published.body);
    await onlyEntry(
      published,
      'publishEvent',
      { type: 'event', id: draft.id },
      {
        status: { before: 'draft', after: 'published' },
        published_at: { before: null, after: t.clock.now().toISOString() },
      },
    );
  });

  test('API keys: created (never the key itself) and revoked', async () => {
    const owner = await ownerOf(t, org.id);
    const user = { type: 'user', id: owner.id, label: owner.email };
    tick(t);
    const created = await t.dash(owner.session, 'POST', '/dashboard/v1/api_keys', {
      name: 'Box office',
      scopes: ['read', 'write'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json();
    const entries = await logOf(t, owner, `target_id=${key.id}`);
    assert.deepEqual(entries, [
      expected(t, created, {
        organizerId: org.id,
        actor: user,
        action: 'createApiKey',
        target: { type: 'api_key', id: key.id },
        changes: {
          name: { before: null, after: 'Box office' },
          scopes: { before: null, after: ['read', 'write'] },
          key_preview: { before: null, after: key.key.slice(0, 10) },
          created_by: { before: null, after: owner.id },
        },
      }),
    ]);
    const raw = await t.dash(owner.session, 'GET', '/dashboard/v1/audit_log?limit=100');
    assert.ok(!raw.body.includes(key.key), 'the raw key is nowhere in the log');

    // Its writes are the key's, labelled with its name and preview.
    const event = await createEvent(t, org.key, { title: 'Alpha' });
    tick(t);
    const write = await t.api(key.key, 'PATCH', `/v1/events/${event.id}`, { is_archived: true });
    assert.equal(write.statusCode, 200, write.body);
    assert.deepEqual(await logOf(t, owner, `actor_id=${key.id}`), [
      expected(t, write, {
        organizerId: org.id,
        actor: { type: 'api_key', id: key.id, label: `Box office (${key.key.slice(0, 10)})` },
        action: 'updateEvent',
        target: { type: 'event', id: event.id },
        changes: { is_archived: { before: false, after: true } },
      }),
    ]);

    tick(t);
    const revoked = await t.dash(owner.session, 'POST', `/dashboard/v1/api_keys/${key.id}/revoke`);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.deepEqual((await logOf(t, owner, `target_id=${key.id}`))[0], {
      ...expected(t, revoked, {
        organizerId: org.id,
        actor: user,
        action: 'revokeApiKey',
        target: { type: 'api_key', id: key.id },
        changes: { revoked_at: { before: null, after: t.clock.now().toISOString() } },
      }),
    });
  });

  test('the team: invite, change a role, remove', async () => {
    const owner = await ownerOf(t, org.id);
    const user = { type: 'user', id: owner.id, label: owner.email };
    tick(t);
    const invited = await t.dash(owner.session, 'POST', '/dashboard/v1/members', {
      email: 'newcomer@example.test',
      role: 'viewer',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const memberId = invited.json().id as string;
    tick(t);
    const changed = await t.dash(owner.session, 'PATCH', `/dashboard/v1/members/${memberId}`, { role: 'manager' });
    assert.equal(changed.statusCode, 200, changed.body);
    tick(t);
    const removed = await t.dash(owner.session, 'DELETE', `/dashboard/v1/members/${memberId}`);
    assert.equal(removed.statusCode, 204, removed.body);
    const member = { type: 'member', id: memberId };
    assert.deepEqual(await logOf(t, owner, `target_type=member&target_id=${memberId}`), [
      expected(t, removed, {
        organizerId: org.id,
        actor: user,
        action: 'removeMember',
        target: member,
        changes: {
          email: { before: 'newcomer@example.test', after: null },
          role: { before: 'manager', after: null },
          status: { before: 'invited', after: null },
          invited_by: { before: owner.id, after: null },
        },
      }),
      {
        ...expected(t, changed, {
          organizerId: org.id,
          actor: user,
          action: 'updateMember',
          target: member,
          changes: { role: { before: 'viewer', after: 'manager' } },
        }),
        occurred_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
      },
      {
        ...expected(t, invited, {
          organizerId: org.id,
          actor: user,
          action: 'inviteMember',
          target: member,
          changes: {
            email: { before: null, after: 'newcomer@example.test' },
            role: { before: null, after: 'viewer' },
            status: { before: null, after: 'invited' },
            invited_by: { before: null, after: owner.id },
          },
        }),
        occurred_at: new Date(t.clock.now().getTime() - 2000).toISOString(),
      },
    ]);
  });

  test('organizer settings and the webhook test button', async () => {
    const owner = await ownerOf(t, org.id);
    const user = { type: 'user', id: owner.id, label: owner.email };
    tick(t);
    const settings = await t.dash(owner.session, 'PATCH', '/dashboard/v1/organizer', { tax_rate_bps: 700 });
    assert.equal(settings.statusCode, 200, settings.body);
    assert.deepEqual(await logOf(t, owner, 'target_type=organizer&limit=1'), [
      expected(t, settings, {
        organizerId: org.id,
        actor: user,
        action: 'updateOrganizerSettings',
        target: { type: 'organizer', id: org.id },
        changes: { tax_rate_bps: { before: 0, after: 700 } },
      }),
    ]);

    tick(t);
    const endpoint = await t.dash(owner.session, 'POST', '/dashboard/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/hook',
      event_types: ['order.created'],
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const endpointId = endpoint.json().id as string;
    tick(t);
    const ping = await t.dash(owner.session, 'POST', `/dashboard/v1/webhook_endpoints/${endpointId}/test`);
    assert.equal(ping.statusCode, 201, ping.body);
    const entries = await logOf(t, owner, `target_id=${endpointId}`);
    assert.deepEqual(entries, [
      expected(t, ping, {
        organizerId: org.id,
        actor: user,
        action: 'testWebhookEndpoint',
        target: { type: 'webhook_endpoint', id: endpointId },
      }),
      {
        ...expected(t, endpoint, {
          organizerId: org.id,
          actor: user,
          action: 'createWebhookEndpoint',
          target: { type: 'webhook_endpoint', id: endpointId },
          changes: {
            url: { before: null, after: 'https://127.0.0.1:9/hook' },
            event_types: { before: null, after: ['order.created'] },
            status: { before: null, after: 'enabled' },
            secret: { before: null, after: '[redacted]' },
          },
        }),
        occurred_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
      },
    ]);
    assert.ok(!JSON.stringify(entries).includes(endpoint.json().secret), 'the secret is nowhere in the log');
  });

  test('sign-in, sign-out and an accepted invitation are the person`s', async () => {
    const owner = await ownerOf(t, org.id);
    const person = await t.createUser({ organizerId: org.id, role: 'viewer' });
    tick(t);
    const signIn = await post(t, '/dashboard/v1/session', { email: person.email, password: person.password });
    assert.equal(signIn.statusCode, 201, signIn.body);
    const personal = { type: 'user', id: person.id, label: person.email };
    assert.deepEqual(await logOf(t, owner, `actor_id=${person.id}`), [
      expected(t, signIn, {
        organizerId: org.id,
        actor: personal,
        action: 'signIn',
        target: { type: 'user', id: person.id },
      }),
    ]);
    const wrong = await post(t, '/dashboard/v1/session', { email: person.email, password: 'not the password at all' });
    assert.equal(wrong.statusCode, 401);
    assert.equal((await logOf(t, owner, `actor_id=${person.id}`)).length, 1, 'a refused sign-in records nothing');

    const cookie = signIn.headers['set-cookie']!.toString().split(';')[0]!;
    tick(t);
    const signOut = await t.dash(
      { cookie, csrf: signIn.json().csrf_token as string, body: signIn.json() },
      'DELETE',
      '/dashboard/v1/session',
    );
    assert.equal(signOut.statusCode, 204, signOut.body);
    const sessionId = (await logOf(t, owner, `actor_id=${person.id}&action=signOut`))[0]!.target as { id: string };
    assert.match(sessionId.id, UUID);
    assert.deepEqual(await logOf(t, owner, `actor_id=${person.id}&action=signOut`), [
      expected(t, signOut, {
        organizerId: org.id,
        actor: personal,
        action: 'signOut',
        target: { type: 'session', id: sessionId.id },
      }),
    ]);

    const mail = mailOf(t);
    const invited = await t.dash(owner.session, 'POST', '/dashboard/v1/members', {
      email: 'joiner@example.test',
      role: 'door',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    await mail.run();
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.sent.at(-1)!.raw.toString('latin1'))![1]!;
    tick(t);
    const accepted = await post(t, '/dashboard/v1/invitation/accept', {
      token,
      name: 'Joiner',
      password: 'a long and unusual passphrase',
    });
    assert.equal(accepted.statusCode, 201, accepted.body);
    const joiner = accepted.json().user.id as string;
    assert.deepEqual(await logOf(t, owner, `actor_id=${joiner}`), [
      expected(t, accepted, {
        organizerId: org.id,
        actor: { type: 'user', id: joiner, label: 'joiner@example.test' },
        action: 'acceptInvitation',
        target: { type: 'user', id: joiner },
      }),
    ]);
  });

  test('routes the hook was never told about: holds, questions, the e-ticket resend', async () => {
    const owner = await ownerOf(t, org.id);
    const user = { type: 'user', id: owner.id, label: owner.email };
    const sale = await setupSale(t, { org });
    const [performanceId] = performanceIdsOf(sale.event);
    tick(t);
    const hold = await t.dash(owner.session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 5,
    });
    assert.equal(hold.statusCode, 201, hold.body);
    const holdId = hold.json().id as string;
    const held = expected(t, hold, {
      organizerId: org.id,
      actor: user,
      action: 'createHold',
      target: { type: 'hold', id: holdId },
      changes: {
        performance_id: { before: null, after: performanceId },
        kind: { before: null, after: 'allocation' },
        quantity: { before: null, after: 5 },
      },
    });
    tick(t);
    const released = await t.dash(owner.session, 'DELETE', `/dashboard/v1/holds/${holdId}`);
    assert.equal(released.statusCode, 200, released.body);
    assert.deepEqual(await logOf(t, owner, `target_type=hold&target_id=${holdId}`), [
      expected(t, released, {
        organizerId: org.id,
        actor: user,
        action: 'releaseHold',
        target: { type: 'hold', id: holdId },
        changes: { released_at: { before: null, after: t.clock.now().toISOString() } },
      }),
      { ...held, occurred_at: new Date(t.clock.now().getTime() - 1000).toISOString() },
    ]);

    tick(t);
    const question = await t.dash(owner.session, 'POST', `/dashboard/v1/events/${sale.event.id}/questions`, {
      key: 'company',
      label: 'Company',
      type: 'text',
    });
    assert.equal(question.statusCode, 201, question.body);
    const [entry] = await logOf(t, owner, 'action=createQuestion&limit=1');
    assert.deepEqual(entry!.target, { type: 'question', id: question.json().id });
    assert.deepEqual((entry!.changes as Record<string, { after: unknown }>).label, { before: null, after: 'Company' });

    const order = await placeOrder(t, sale);
    tick(t);
    const resent = await t.dash(owner.session, 'POST', `/dashboard/v1/orders/${order.id}/resend_tickets`);
    assert.equal(resent.statusCode, 202, resent.body);
    assert.deepEqual(await logOf(t, owner, 'action=resendTickets'), [
      expected(t, resent, {
        organizerId: org.id,
        actor: user,
        action: 'resendTickets',
        target: { type: 'order', id: order.id },
      }),
    ]);
  });

  test('the operator: recorded in the organizer of the target', async () => {
    const owner = await ownerOf(t, org.id);
    const sale = await setupSale(t, { org });
    const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
    tick(t);
    const settled = await t.admin('POST', `/admin/v1/orders/${unpaid.id}/settle`, {});
    assert.equal(settled.statusCode, 200, settled.body);
    assert.deepEqual(await logOf(t, owner, `actor_type=operator&target_id=${unpaid.id}`), [
      {
        ...expected(t, settled, {
          organizerId: org.id,
          actor: { type: 'operator', id: null, label: 'operator' },
          action: 'adminSettleOrder',
          target: { type: 'order', id: unpaid.id },
          changes: {
            status: { before: 'unpaid', after: 'placed' },
            paid_at: { before: null, after: t.clock.now().toISOString() },
          },
        }),
        user_agent: 'lightMyRequest',
      },
    ]);
  });

  test('concurrent writes: each its own entry, written together; a bad entry fails only itself', async () => {
    const sale = await setupSale(t, {
      org,
      event: { performances: [{ starts_at: '2031-05-01T19:00:00Z', capacity: 50 }] },
    });
    tick(t);
    const place = () =>
      t.api(org.key, 'POST', '/v1/orders', {
        items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 1 }],
        buyer: BUYER,
        tender: 'pay_later',
      });
    const answers = await Promise.all(Array.from({ length: 10 }, place));
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      Array.from({ length: 10 }, () => 201),
    );
    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['target_id', 'request_id', 'action', sql<string>`xmin::text`.as('xmin')])
      .where('organizer_id', '=', org.id)
      .where('action', '=', 'createOrder')
      .where(
        'target_id',
        'in',
        answers.map((res) => res.json().id as string),
      )
      .execute();
    assert.deepEqual(
      entries.map((e) => `${e.target_id} ${e.request_id}`).sort(),
      answers.map((res) => `${res.json().id} ${String(res.headers['x-request-id'])}`).sort(),
      'one entry per order, each with its own request id',
    );
    assert.ok(new Set(entries.map((e) => e.xmin)).size < 10, 'some entries were written by one statement');

    // An entry the database refuses (a trigger, for one request id): its statement fails,
    // and the entries that were to go with it are written alone.
    await sql`
      CREATE FUNCTION refuse_poisoned_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.action = 'createOrder' AND NEW.target_id IN (SELECT id FROM orders WHERE buyer_email = 'poison@example.test') THEN
          RAISE EXCEPTION 'poisoned entry';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poisoned_entry BEFORE INSERT ON audit_log
        FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_entry();
    `.execute(t.database.db);
    try {
      const more = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.api(org.key, 'POST', '/v1/orders', {
            items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 1 }],
            buyer: i === 4 ? { first_name: 'Pat', email: 'poison@example.test' } : BUYER,
            tender: 'pay_later',
          }),
        ),
      );
      // The change is committed before its entry is written, so its answer stands.
      assert.deepEqual(
        more.map((res) => res.statusCode),
        Array.from({ length: 10 }, () => 201),
      );
      const recorded = await t.database.db
        .selectFrom('audit_log')
        .select('target_id')
        .where('organizer_id', '=', org.id)
        .where(
          'target_id',
          'in',
          more.map((res) => res.json().id as string),
        )
        .execute();
      assert.deepEqual(
        recorded.map((e) => e.target_id).sort(),
        more
          .filter((_, i) => i !== 4)
          .map((res) => res.json().id as string)
          .sort(),
      );
    } finally {
      await sql`DROP TRIGGER refuse_poisoned_entry ON audit_log; DROP FUNCTION refuse_poisoned_entry()`.execute(
        t.database.db,
      );
    }
  });
});
