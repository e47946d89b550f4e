/**
 * The webhooks Marquee sends, for the OpenAPI document's `webhooks` section
 * (docs/webhooks.md, "Payload schemas"): one payload schema per event type and for
 * `test.ping`, each a component, and `WebhookEvent`, their union discriminated on `type`.
 *
 * The schemas say exactly what the emitters put in `data` (src/domain/**, src/mail/jobs.ts);
 * test/webhooks/webhook-schemas.test.ts validates real deliveries against them.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ref, Uuid } from './schemas/common.ts';

const OrderStatus = Type.Unsafe<'unpaid' | 'placed' | 'fulfilled' | 'cancelled'>({
  type: 'string',
  enum: ['unpaid', 'placed', 'fulfilled', 'cancelled'],
});

/** The envelope `{type, timestamp, data}` of one event type, a component named `id`. */
function envelope<T extends string, D extends TSchema>(
  type: T,
  id: string,
  data: D,
  description: string,
  example: Record<string, unknown>,
) {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'when the event happened (ISO 8601, UTC)' }),
      data,
    },
    {
      $id: id,
      additionalProperties: false,
      description,
      examples: [{ type, timestamp: '2026-11-24T22:23:08.685Z', data: example }],
    },
  );
}

const strict = <P extends Parameters<typeof Type.Object>[0]>(properties: P) =>
  Type.Object(properties, { additionalProperties: false });

const ORDER_ID = 'dc53ef2e-a258-43de-9b33-3f14a1029cde';
const EVENT_ID = '67c1d715-d7e3-4cf4-b74c-6a70d4d29c1b';
const PERFORMANCE_ID = '1c721279-854c-458a-9124-f115dfc1ca66';
const REFUND_ID = '0b7c1f0e-5d2a-4a57-9d0e-3f8e2c6b9a41';

const OrderCreatedEvent = envelope(
  'order.created',
  'OrderCreatedEvent',
  strict({
    order_id: Uuid,
    order_no: Type.String(),
    status: OrderStatus,
    total_minor: Type.Integer(),
    currency: Type.String({ description: 'ISO 4217 code' }),
    channel: Type.String({
      description: 'where the order was made, in the cart’s vocabulary: `boxOffice` for POST /v1/orders, `online`, …',
    }),
  }),
  'Once, when a new order is made on any channel.',
  {
    order_id: ORDER_ID,
    order_no: 'BW3KPTD2',
    status: 'placed',
    total_minor: 7000,
    currency: 'EUR',
    channel: 'boxOffice',
  },
);

const OrderPaidEvent = envelope(
  'order.paid',
  'OrderPaidEvent',
  strict({
    order_id: Uuid,
    order_no: Type.String(),
    status: OrderStatus,
    amount_minor: Type.Integer({ description: 'the payment that completed the order; 0 when none was needed' }),
    total_minor: Type.Integer(),
    currency: Type.String({ description: 'ISO 4217 code' }),
    tender: Type.String({
      description: 'how it was paid, in the internal vocabulary: `cash`, `card`, `bankTransfer`, …',
    }),
  }),
  'When an unpaid order is settled. An order paid when it is made emits only order.created.',
  {
    order_id: ORDER_ID,
    order_no: 'BW3KPTD2',
    status: 'placed',
    amount_minor: 7000,
    total_minor: 7000,
    currency: 'EUR',
    tender: 'cash',
  },
);

const RefundInitiated = strict({
  order_id: Uuid,
  refund_id: Uuid,
  status: Type.Unsafe<'refunded' | 'pending'>({
    type: 'string',
    enum: ['refunded', 'pending'],
    description: '`refunded` for a cash refund, `pending` for a card refund until the gateway settles it',
  }),
  refunded_items: Type.Integer({ description: 'how many tickets were refunded' }),
  total_refunded_minor: Type.Integer(),
  currency: Type.String({ description: 'ISO 4217 code' }),
  mode: Type.String({ description: '`cash` or `card`' }),
});

const RefundSettled = strict({
  order_id: Uuid,
  refund_id: Uuid,
  status: Type.Unsafe<'refunded' | 'failed'>({
    type: 'string',
    enum: ['refunded', 'failed'],
    description: 'the gateway’s outcome for a pending card refund',
  }),
});

const OrderRefundedEvent = envelope(
  'order.refunded',
  'OrderRefundedEvent',
  Type.Union([RefundInitiated, RefundSettled], {
    description: 'the initiation payload, or the smaller settlement payload of a card refund',
  }),
  'When a refund starts, and again, with the smaller payload, when the gateway settles a pending card refund.',
  {
    order_id: ORDER_ID,
    refund_id: REFUND_ID,
    status: 'refunded',
    refunded_items: 2,
    total_refunded_minor: 7000,
    currency: 'EUR',
    mode: 'cash',
  },
);

const TicketIssuedEvent = envelope(
  'ticket.issued',
  'TicketIssuedEvent',
  strict({
    order_id: Uuid,
    order_no: Type.String(),
    ticket_ids: Type.Array(Uuid, { maxItems: 100, description: 'at most the first 100' }),
    ticket_ids_truncated: Type.Boolean({
      description: 'true when there are more: list them with GET /v1/tickets?order_id',
    }),
    ticket_count: Type.Integer({ description: 'how many tickets the mail carried' }),
  }),
  'After the e-ticket mail is delivered to the buyer.',
  {
    order_id: ORDER_ID,
    order_no: 'BW3KPTD2',
    ticket_ids: ['47c82abf-8a3a-4831-9c85-a42e52c1dc01', '4a9a5717-2ea7-4c5c-a9e9-6ba2b2212696'],
    ticket_ids_truncated: false,
    ticket_count: 2,
  },
);

const TicketCheckedInEvent = envelope(
  'ticket.checked_in',
  'TicketCheckedInEvent',
  strict({
    ticket_id: Uuid,
    ticket_no: Type.String(),
    order_no: Type.String(),
    event_id: Uuid,
    performance_id: Uuid,
  }),
  'Exactly once per fresh admit, at the gate scanner and through the API alike.',
  {
    ticket_id: '47c82abf-8a3a-4831-9c85-a42e52c1dc01',
    ticket_no: 'BW3KPTD2-001',
    order_no: 'BW3KPTD2',
    event_id: EVENT_ID,
    performance_id: PERFORMANCE_ID,
  },
);

const EventPublishedEvent = envelope(
  'event.published',
  'EventPublishedEvent',
  strict({ event_id: Uuid, performance_id: Uuid }),
  'Once per performance when it goes live: an event published by the admin API, or created with `publish` true.',
  { event_id: EVENT_ID, performance_id: PERFORMANCE_ID },
);

const EventUpdatedEvent = envelope(
  'event.updated',
  'EventUpdatedEvent',
  strict({ event_id: Uuid }),
  'When an existing event’s details are saved (PATCH /v1/events/{id}), drafts included.',
  { event_id: EVENT_ID },
);

const TestPingEvent = envelope(
  'test.ping',
  'TestPingEvent',
  strict({ message: Type.String(), endpoint_id: Uuid }),
  'Sent to one endpoint by the admin test button, even when it is disabled. Not a subscribable type.',
  { message: 'This is a test event from Marquee.', endpoint_id: 'd8d7753e-282e-4819-ae96-e91e2e23ab04' },
);

const EVENT_SCHEMAS = [
  OrderCreatedEvent,
  OrderPaidEvent,
  OrderRefundedEvent,
  TicketIssuedEvent,
  TicketCheckedInEvent,
  EventPublishedEvent,
  EventUpdatedEvent,
  TestPingEvent,
] as const;

const typeOf = (schema: (typeof EVENT_SCHEMAS)[number]) => schema.properties.type.const;

/** Any webhook body, discriminated on `type`. */
const WebhookEvent = Type.Union(
  EVENT_SCHEMAS.map((schema) => ref(schema)),
  {
    $id: 'WebhookEvent',
    description: 'The body of any webhook Marquee sends; `type` says which',
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_SCHEMAS.map((s) => [typeOf(s), `#/components/schemas/${s.$id}`])),
    },
  },
);

/** The payload components, for the document's components.schemas. */
export const webhookEventSchemas: readonly (TSchema & { $id: string })[] = [...EVENT_SCHEMAS, WebhookEvent].map(
  (schema) => schema as TSchema & { $id: string },
);

const HEADERS = [
  {
    name: 'webhook-id',
    in: 'header' as const,
    required: true,
    description: 'The event id: the same on every retry and redelivery. Deduplicate on it.',
    schema: { type: 'string' as const, format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header' as const,
    required: true,
    description: 'Unix seconds of this attempt. Reject values older than a few minutes.',
    schema: { type: 'string' as const, pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header' as const,
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256, keyed with the endpoint secret, of `{webhook-id}.{webhook-timestamp}.{raw body}` (docs/webhooks.md, "Verifying the signature").',
    schema: { type: 'string' as const, pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

const RESPONSES = {
  '2XX': { description: 'Acknowledged. Any 2xx within 15 seconds counts.' },
  '410': { description: 'Gone: the endpoint is disabled at once and this delivery is not retried.' },
  default: {
    description:
      'Any other answer, a redirect or none within 15 seconds is a failure, retried after 30 s, 2 min, 10 min, 1 h, 6 h and 24 h.',
  },
};

const operationId = (type: string) =>
  `${type.replace(/[._](\w)/g, (_m, letter: string) => letter.toUpperCase())}Webhook`;

/** The document's `webhooks` object: one POST per event type and test.ping. */
export const openApiWebhooks = Object.fromEntries(
  EVENT_SCHEMAS.map((schema) => [
    typeOf(schema),
    {
      post: {
        operationId: operationId(typeOf(schema)),
        tags: ['webhooks'],
        summary: `${typeOf(schema)}`,
        description: schema.description ?? '',
        security: [],
        parameters: HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${schema.$id}` },
              example: (schema.examples as unknown[])[0],
            },
          },
        },
        responses: RESPONSES,
      },
    },
  ]),
);
