/**
 * A door check-in loop: admit every ticket of a performance that is not in yet, the way
 * a scanner would, and report each outcome. A ticket admitted twice is a 409.
 *
 *   MARQUEE_BASE_URL=http://127.0.0.1:3000 MARQUEE_API_KEY=mqk_… PERFORMANCE_ID=… \
 *     node --conditions=source --import tsx examples/door-check-in.ts
 */
import { Marquee, MarqueeApiError } from '@marquee/sdk';

const marquee = new Marquee({ apiKey: process.env.MARQUEE_API_KEY ?? '', baseUrl: process.env.MARQUEE_BASE_URL ?? '' });
const performanceId = process.env.PERFORMANCE_ID ?? '';

let admitted = 0;
let refused = 0;
for await (const ticket of marquee.tickets.list({ performance_id: performanceId, status: 'purchased' })) {
  try {
    const inside = await marquee.tickets.checkIn(ticket.id);
    admitted += 1;
    console.log(`admitted ${inside.ticket_no} ${inside.holder.first_name} at ${inside.checked_in_at}`);
  } catch (err) {
    if (!(err instanceof MarqueeApiError) || err.status !== 409) throw err;
    refused += 1;
    console.log(`refused ${ticket.ticket_no}: ${err.detail}`);
  }
}
console.log(`${admitted} admitted, ${refused} refused`);
