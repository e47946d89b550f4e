/**
 * A webhook consumer on node:http: verifies each delivery's signature, answers 204 at
 * once, deduplicates on webhook-id, then handles the typed event.
 *
 *   MARQUEE_WEBHOOK_SECRET=whsec_… PORT=4000 node --conditions=source --import tsx examples/webhook-consumer.ts
 */
import { createServer } from 'node:http';
import { verifyWebhook, type WebhookEvent } from '@marquee/sdk';

const secret = process.env.MARQUEE_WEBHOOK_SECRET ?? '';
const seen = new Set<string>();

function handle(event: WebhookEvent): void {
  switch (event.type) {
    case 'order.created':
      console.log(`order ${event.data.order_no}: ${event.data.total_minor} ${event.data.currency}`);
      break;
    case 'ticket.checked_in':
      console.log(`ticket ${event.data.ticket_no} admitted`);
      break;
    default:
      console.log(`${event.type}`);
  }
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    let event: WebhookEvent;
    try {
      event = verifyWebhook(body, req.headers, secret);
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(204).end();
    const id = String(req.headers['webhook-id']);
    if (seen.has(id)) return;
    seen.add(id);
    handle(event);
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => console.log('listening'));
