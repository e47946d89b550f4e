/** The static part of the OpenAPI 3.1 document; paths come from the route schemas. */
import type { SwaggerOptions } from '@fastify/swagger';
import { openApiWebhooks } from './openapi-webhooks.ts';

/** What /docs shows above the operations: the conventions, the SDK and its examples. */
const DESCRIPTION = `Events, performances, availability, box-office orders, tickets, check-in and signed webhooks.
Errors are RFC 9457 problem+json with a stable \`code\` (and \`param\` naming the field at fault); lists are
cursor-paginated with \`limit\` and \`starting_after\`; every POST and PATCH takes an \`Idempotency-Key\`.

## SDK

\`@marquee/sdk\` is the typed TypeScript client (docs/sdk.md):

\`\`\`ts
import { Marquee } from '@marquee/sdk';
const marquee = new Marquee({ apiKey: 'mqk_…', baseUrl: 'https://tickets.example.com' });
const order = await marquee.orders.create({ items, buyer, tender: 'cash' });
for await (const ticket of marquee.tickets.list({ order_id: order.id })) console.log(ticket.ticket_no);
\`\`\`

Runnable examples in the repository's \`examples/\`: a box-office sale with registration answers
(\`box-office-sale.ts\`), a door check-in loop (\`door-check-in.ts\`) and a webhook consumer on
\`node:http\` (\`webhook-consumer.ts\`). Their core:

\`\`\`ts
// box-office-sale.ts: two tickets with a per-attendee answer; a refusal says what is left
try {
  const order = await marquee.orders.create({
    items: [{ performance_id: performanceId, ticket_type_id: ticketType.id, quantity: 2 }],
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    tender: 'cash',
    registration_answers: [{ field_key: 'dietary', ticket_no: '1', value: 'vegetarian' }],
  });
  console.log(\`order \${order.order_no}: \${order.total_minor / 100} \${order.currency}\`);
} catch (err) {
  if (err instanceof MarqueeApiError) console.error(\`refused: \${err.code} \${err.detail}\`);
}

// door-check-in.ts: admit every ticket of a performance not in yet; a second admission is a 409
for await (const ticket of marquee.tickets.list({ performance_id: performanceId, status: 'purchased' })) {
  try {
    const inside = await marquee.tickets.checkIn(ticket.id);
    console.log(\`admitted \${inside.ticket_no} at \${inside.checked_in_at}\`);
  } catch (err) {
    if (!(err instanceof MarqueeApiError) || err.status !== 409) throw err;
    console.log(\`refused \${ticket.ticket_no}: \${err.detail}\`);
  }
}
\`\`\`

## Webhooks

Every event type, its headers and its payload schema are in the **Webhooks** section below; verify each
delivery's \`webhook-signature\` before trusting it. The SDK's \`verifyWebhook\` checks it (Standard Webhooks)
over the raw body and returns the event typed by its \`type\` (\`examples/webhook-consumer.ts\`):

\`\`\`ts
import { verifyWebhook } from '@marquee/sdk';
const event = verifyWebhook(rawBody, req.headers, process.env.MARQUEE_WEBHOOK_SECRET!); // throws if forged or stale
if (event.type === 'order.created') console.log(event.data.order_no, event.data.total_minor);
\`\`\``;

export const openApiDocument: NonNullable<Extract<SwaggerOptions, { openapi?: unknown }>['openapi']> = {
  openapi: '3.1.0',
  info: {
    title: 'Marquee ticketing API',
    version: '1.0.0',
    description: DESCRIPTION,
    license: { name: 'Proprietary', identifier: 'LicenseRef-Marquee' },
  },
  // Relative: it resolves against wherever the document was fetched from, so /docs "Try
  // it out" calls the server that served the page, whatever its host, port or proxy.
  servers: [{ url: '/', description: 'the server that serves this document' }],
  tags: [
    { name: 'api_key', description: 'The calling API key: its scopes and organizer' },
    { name: 'events', description: 'Events, ticket types and prices' },
    { name: 'performances', description: 'Scheduled dates and availability' },
    { name: 'orders', description: 'Box-office orders' },
    { name: 'tickets', description: 'Issued tickets and check-in' },
    { name: 'webhooks', description: 'Webhook endpoints and deliveries' },
    { name: 'exports', description: 'Streamed CSV exports of an event’s orders and tickets' },
    { name: 'devices', description: 'Door devices: pairing, and what a device is (docs/dashboard.md)' },
    { name: 'admin', description: 'Admin API (dashboard, box office, gate scanner)' },
  ],
  components: {
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'An organizer API key (`mqk_…`).' },
      adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN of the deployment.' },
    },
  },
  security: [{ apiKey: [] }],
  // What Marquee sends to webhook endpoints (docs/webhooks.md, "Payload schemas").
  webhooks: openApiWebhooks,
};

/** The static part of the dashboard API's own document, served at /dashboard/v1/openapi.json. */
export const dashboardOpenApiDocument: typeof openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Marquee dashboard API',
    version: '1.0.0',
    description: `The organizer dashboard's API (docs/dashboard.md): a person signs in with an e-mail address and a
password (and a TOTP code when enrolled) and gets a session cookie. Every POST, PATCH and DELETE needs an
\`Origin\` of this service and the session's \`x-csrf-token\`. What a person may do is the role's
permissions; a missing one answers 403 \`role_forbidden\` naming it. The \`/v1\` operations a person needs
are mounted here at the same sub-paths, with the same schemas. API keys are not accepted here.`,
    license: { name: 'Proprietary', identifier: 'LicenseRef-Marquee' },
  },
  servers: [{ url: '/', description: 'the server that serves this document' }],
  tags: [
    { name: 'session', description: 'Signing in and out, switching organizer, the own sessions' },
    { name: 'profile', description: 'The own name, password and second factor' },
    { name: 'team', description: 'Members, invitations and roles' },
    { name: 'developer', description: 'Developer settings: the organizer’s API keys' },
    { name: 'links', description: 'Invitations, password resets and the first owner’s set-up (no session)' },
    { name: 'organizer', description: 'Organizer settings: name, time zone, currency, fee, tax, e-mail addresses' },
    { name: 'reports', description: 'Sales reports of an event: sold, remaining, money, sales over time' },
    ...(openApiDocument.tags ?? []).filter((tag) => tag.name !== 'admin' && tag.name !== 'api_key'),
  ],
  components: {
    securitySchemes: {
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'marquee_session',
        description: 'Set by POST /dashboard/v1/session (`__Host-marquee_session` over HTTPS).',
      },
      csrfToken: {
        type: 'apiKey',
        in: 'header',
        name: 'x-csrf-token',
        description: 'The session body’s `csrf_token`; needed on POST, PATCH and DELETE.',
      },
    },
  },
  security: [{ sessionCookie: [], csrfToken: [] }],
};
