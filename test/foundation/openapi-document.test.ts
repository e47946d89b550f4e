/**
 * The OpenAPI document (docs/openapi.md): named components referenced by `$ref`, errors as
 * problem+json, examples that validate against their schemas, and every operation
 * described.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { addApiFormats } from '../../src/http/validation.ts';
import { useTestApp } from '../helpers/app.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
  security?: unknown[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
}

/** The components the document promises integrators and SDK generators, by name. */
const RESOURCE_COMPONENTS = [
  'Event',
  'EventDetail',
  'TicketType',
  'Price',
  'Performance',
  'Availability',
  'Order',
  'OrderDetail',
  'OrderTransaction',
  'RegistrationAnswer',
  'Ticket',
  'WebhookEndpoint',
  'WebhookEndpointWithSecret',
  'WebhookDelivery',
  'WebhookDeliveryDetail',
  'WebhookDeliveryAttempt',
  'WebhookRecovery',
  'Problem',
  'EventList',
  'PerformanceList',
  'OrderList',
  'TicketList',
  'WebhookEndpointList',
  'WebhookDeliveryList',
  'CreateEventRequest',
  'UpdateEventRequest',
  'CreateOrderRequest',
  'CreateWebhookEndpointRequest',
  'UpdateWebhookEndpointRequest',
  'RecoverWebhookEndpointRequest',
];

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  const t = useTestApp();
  const load = async () => (await t.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Document>();

  test('every resource, list and request body is a named component, and every $ref resolves', async () => {
    const doc = await load();
    for (const name of RESOURCE_COMPONENTS) assert.ok(doc.components.schemas[name], `component ${name}`);
    const refs = refsIn(doc);
    assert.ok(refs.length > 100, `${refs.length} references`);
    for (const ref of new Set(refs)) {
      assert.match(ref, /^#\/components\/schemas\/\w+$/);
      assert.ok(doc.components.schemas[ref.split('/').pop() ?? ''], `${ref} resolves`);
    }
    const order = doc.paths['/v1/orders']?.['post'];
    assert.deepEqual(order?.requestBody?.content['application/json']?.schema, {
      $ref: '#/components/schemas/CreateOrderRequest',
    });
    assert.deepEqual(order?.responses['201']?.content, {
      'application/json': { schema: { $ref: '#/components/schemas/OrderDetail' } },
    });
    assert.deepEqual(doc.paths['/v1/orders']?.['get']?.responses['200']?.content, {
      'application/json': { schema: { $ref: '#/components/schemas/OrderList' } },
    });
  });

  test('every example validates against its component; a broken one does not', async () => {
    const doc = await load();
    const ajv = addApiFormats(new Ajv({ strict: false, validateSchema: false, allErrors: true }));
    ajv.addSchema(doc, 'document');
    let examples = 0;
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      const validate = ajv.getSchema(`document#/components/schemas/${name}`);
      assert.ok(validate, name);
      for (const example of schema.examples ?? []) {
        examples += 1;
        assert.equal(validate(example), true, `${name}: ${JSON.stringify(validate.errors)}`);
      }
    }
    assert.ok(examples >= 15, `${examples} examples`);
    const validateOrder = ajv.getSchema('document#/components/schemas/OrderDetail');
    const [orderExample] = doc.components.schemas['OrderDetail']?.examples ?? [];
    assert.equal(validateOrder?.({ ...(orderExample as object), total_minor: '70.00' }), false);
  });

  test('every operation has an id, a tag, a summary, a description and described responses', async () => {
    const doc = await load();
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        operations += 1;
        const where = `${method.toUpperCase()} ${path}`;
        // A public operation (`security: []`, the device claim) has no API key: no 401 or
        // 403, and no Idempotency-Key, which a key owns.
        const keyed = op.security?.length !== 0;
        assert.ok(op.operationId && op.summary && op.description && op.tags?.length, where);
        for (const [status, response] of Object.entries(op.responses)) {
          assert.notEqual(response.description, 'Default Response', `${where} ${status}`);
        }
        if (method === 'post' || method === 'patch') {
          for (const status of ['413', '415']) assert.ok(op.responses[status], `${where} declares ${status}`);
          if (path.startsWith('/v1/') && keyed)
            assert.ok(op.responses['409'], `${where} declares 409 (Idempotency-Key)`);
        }
        if (path.startsWith('/v1/') && keyed)
          for (const status of ['401', '403']) assert.ok(op.responses[status], `${where} declares ${status}`);
        if (path.includes('{id}')) assert.ok(op.responses['404'], `${where} declares 404`);
      }
    }
    assert.ok(operations >= 40, `${operations} operations`);
  });

  test('/docs shows the SDK, its runnable examples and the webhooks of every event type', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
      info: { description: string };
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
    }>();
    for (const example of ['box-office-sale.ts', 'door-check-in.ts', 'webhook-consumer.ts']) {
      assert.ok(doc.info.description.includes(example), example);
    }
    assert.match(doc.info.description, /new Marquee\(\{ apiKey/);
    assert.match(doc.info.description, /const event = verifyWebhook\(rawBody, req\.headers, /);
    assert.match(
      doc.info.description,
      /registration_answers: \[\{ field_key: 'dietary', ticket_no: '1', value: 'vegetarian' \}\]/,
    );
    assert.match(doc.info.description, /const inside = await marquee\.tickets\.checkIn\(ticket\.id\);/);
    assert.deepEqual(Object.keys(doc.webhooks), [
      'order.created',
      'order.paid',
      'order.refunded',
      'ticket.issued',
      'ticket.checked_in',
      'event.published',
      'event.updated',
      'test.ping',
    ]);
    assert.deepEqual(doc.webhooks['ticket.checked_in']?.post.requestBody.content['application/json']?.schema, {
      $ref: '#/components/schemas/TicketCheckedInEvent',
    });
    const page = await t.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger-ui/);
  });
});
