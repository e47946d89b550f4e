/** The static part of the OpenAPI 3.1 document; paths come from the route schemas. */
import type { SwaggerOptions } from '@fastify/swagger';
import { openApiWebhooks } from './openapi-webhooks.ts';

export const openApiDocument: NonNullable<Extract<SwaggerOptions, { openapi?: unknown }>['openapi']> = {
  openapi: '3.1.0',
  info: {
    title: 'Marquee ticketing API',
    version: '1.0.0',
    description:
      'Events, performances, availability, box-office orders, tickets, check-in and signed webhooks. ' +
      'Errors are RFC 9457 problem+json with a stable `code` (and `param` naming the field at fault); lists are cursor-paginated with `limit` and `starting_after`.',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Marquee' },
  },
  // Relative: it resolves against wherever the document was fetched from, so /docs "Try
  // it out" calls the server that served the page, whatever its host, port or proxy.
  servers: [{ url: '/', description: 'the server that serves this document' }],
  tags: [
    { name: 'events', description: 'Events, ticket types and prices' },
    { name: 'performances', description: 'Scheduled dates and availability' },
    { name: 'orders', description: 'Box-office orders' },
    { name: 'tickets', description: 'Issued tickets and check-in' },
    { name: 'webhooks', description: 'Webhook endpoints and deliveries' },
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
