/**
 * Check-in storm: 1000 tickets (250 orders of 4), each checked in by 4 concurrent
 * requests (64 connections, the 4 requests of a ticket adjacent in the sequence). Exactly
 * one 200 per ticket and 3 × 409; exactly one ticket.checked_in domain event, delivery
 * row and received webhook per ticket.
 */
import { createScratchDb, withClient } from '../lib/db.ts';
import { runLoad } from '../lib/load.ts';
import { createEvent, createOrganizerWithKey, mustCall, startMarquee } from '../lib/marquee.ts';
import { duplicates, startBenchReceiver } from '../lib/receiver.ts';
import { round } from '../lib/stats.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

export async function checkInScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const ticketsWanted = opts.quick ? 400 : 1000;
  const receiver = await startBenchReceiver();
  const scratch = await createScratchDb('checkin');
  const proc = await startMarquee({
    role: 'all',
    databaseUrl: scratch.url,
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', NODE_EXTRA_CA_CERTS: receiver.caFile },
  });
  try {
    const { key } = await createOrganizerWithKey(proc.base);
    const event = await createEvent(proc.base, key, {
      performances: 1,
      capacity: ticketsWanted,
      ticketTypes: [{ name: 'General', price_minor: 3500, quantity: null }],
    });
    const performanceId = event.ticket_types[0]!.prices[0]!.performance_id;
    await mustCall(proc.base, 'POST', '/v1/webhook_endpoints', key, {
      url: receiver.receiver.url('/checkins'),
      event_types: ['ticket.checked_in'],
    });
    const ticketIds: string[] = [];
    await runLoad({
      urls: [proc.base],
      connections: 16,
      amount: ticketsWanted / 4,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      next: () => ({
        path: '/v1/orders',
        body: JSON.stringify({
          items: [{ performance_id: performanceId, ticket_type_id: event.ticket_types[0]!.id, quantity: 4 }],
          buyer: { first_name: 'Guest', email: 'guest@example.test' },
          tender: 'cash',
        }),
      }),
      onResponse: (status, body) => {
        if (status === 201) {
          const order = JSON.parse(body) as { transactions: { items: { id: string }[] }[] };
          for (const t of order.transactions) for (const item of t.items) ticketIds.push(item.id);
        }
      },
    });
    if (ticketIds.length !== ticketsWanted)
      throw new Error(`setup: ${ticketIds.length} tickets issued, wanted ${ticketsWanted}`);

    let n = 0;
    const admitted = new Map<string, number>();
    const load = await runLoad({
      urls: [proc.base],
      connections: 64,
      amount: ticketsWanted * 4,
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      next: () => ({ path: `/v1/tickets/${ticketIds[Math.floor(n++ / 4)]}/check_in` }),
      onResponse: (status, body) => {
        if (status === 200) {
          const id = (JSON.parse(body) as { id: string }).id;
          admitted.set(id, (admitted.get(id) ?? 0) + 1);
        }
      },
    });
    const ok = load.statuses['200'] ?? 0;
    const conflicts = load.statuses['409'] ?? 0;
    const received = await receiver.waitFor(ticketsWanted, 60_000);
    await new Promise((r) => setTimeout(r, 500));
    const rows = await withClient(scratch.url, async (c) => {
      const events = await c.query<{ n: string; distinct_tickets: string }>(
        `SELECT count(*) AS n, count(DISTINCT data->>'ticket_id') AS distinct_tickets FROM domain_events WHERE type = 'ticket.checked_in'`,
      );
      const deliveries = await c.query<{ n: string }>(
        `SELECT count(*) AS n FROM webhook_deliveries WHERE event_type = 'ticket.checked_in'`,
      );
      const checkedIn = await c.query<{ n: string }>(
        `SELECT count(*) AS n FROM tickets WHERE status = 'checked_in' AND checked_in_at IS NOT NULL`,
      );
      return {
        events: Number(events.rows[0]!.n),
        distinct: Number(events.rows[0]!.distinct_tickets),
        deliveries: Number(deliveries.rows[0]!.n),
        checkedIn: Number(checkedIn.rows[0]!.n),
      };
    });
    const receivedTickets = new Set(receiver.receipts.map((r) => String(r.data.ticket_id)));
    return {
      figures: {
        tickets: ticketsWanted,
        requests: load.requests,
        duration_s: round(load.durationS, 2),
        checkins_per_s: round(ticketsWanted / load.durationS),
        requests_per_s: round(load.reqPerS),
        p50_ms: load.p50_ms,
        p95_ms: load.p95_ms,
        p99_ms: load.p99_ms,
      },
      checks: [
        check(
          'check-in: exactly one 200 per ticket',
          ok === ticketsWanted && admitted.size === ticketsWanted && [...admitted.values()].every((v) => v === 1),
          `${ok} × 200 over ${admitted.size} tickets`,
        ),
        check(
          'check-in: the other 3 per ticket answered 409',
          conflicts === ticketsWanted * 3,
          `${conflicts} × 409; statuses ${JSON.stringify(load.statuses)}`,
        ),
        check(
          'check-in: every ticket checked_in in the database',
          rows.checkedIn === ticketsWanted,
          `${rows.checkedIn} checked in`,
        ),
        check(
          'check-in: exactly one ticket.checked_in domain event per ticket',
          rows.events === ticketsWanted && rows.distinct === ticketsWanted,
          `${rows.events} events, ${rows.distinct} distinct tickets`,
        ),
        check(
          'check-in: exactly one delivery row per ticket',
          rows.deliveries === ticketsWanted,
          `${rows.deliveries} delivery rows`,
        ),
        check(
          'check-in: every ticket.checked_in webhook received once',
          received &&
            receiver.receipts.length === ticketsWanted &&
            receivedTickets.size === ticketsWanted &&
            duplicates(receiver.receipts) === 0,
          `${receiver.receipts.length} received, ${receivedTickets.size} distinct tickets`,
        ),
      ],
      goals: [],
    };
  } finally {
    await proc.stop();
    await scratch.drop();
    await receiver.close();
  }
}
