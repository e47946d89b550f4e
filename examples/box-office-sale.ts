/**
 * A box-office sale with registration answers: find the next performance of an event,
 * check what is left, sell two tickets with a per-attendee answer, print the tickets.
 *
 *   MARQUEE_BASE_URL=http://127.0.0.1:3000 MARQUEE_API_KEY=mqk_… EVENT_ID=… \
 *     node --conditions=source --import tsx examples/box-office-sale.ts
 */
import { Marquee, MarqueeApiError } from '@marquee/sdk';

const marquee = new Marquee({ apiKey: process.env.MARQUEE_API_KEY ?? '', baseUrl: process.env.MARQUEE_BASE_URL ?? '' });
const eventId = process.env.EVENT_ID ?? '';

const event = await marquee.events.get(eventId);
const ticketType = event.ticket_types[0];
const performanceId = ticketType?.prices[0]?.performance_id;
if (!ticketType || !performanceId) throw new Error(`Event ${event.title} has nothing on sale.`);

const availability = await marquee.performances.availability(performanceId);
console.log(`${event.title}: ${availability.performance_remaining} left`);

try {
  const order = await marquee.orders.create({
    items: [{ performance_id: performanceId, ticket_type_id: ticketType.id, quantity: 2 }],
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    tender: 'cash',
    registration_answers: [{ field_key: 'dietary', ticket_no: '1', value: 'vegetarian' }],
  });
  console.log(`order ${order.order_no}: ${order.total_minor / 100} ${order.currency}`);
  for (const ticket of order.transactions.flatMap((t) => t.items ?? [])) {
    console.log(`ticket ${ticket.ticket_no} (${ticket.serial_no})`);
  }
} catch (err) {
  // A sold-out type is a 400 whose detail says what is left; `param` names the field.
  if (err instanceof MarqueeApiError) console.error(`refused: ${err.code} ${err.detail}`);
  throw err;
}
