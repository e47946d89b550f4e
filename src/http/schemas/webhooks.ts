import { Type } from '@sinclair/typebox';
import { SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from '../../outbox/domain-events.ts';
import { DeletedSchema, ListOf, Nullable, PaginationQuery, rangeEndRule, ref, Timestamp, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';

/** One of the 7 subscribable types; an `enum` so a wrong value's error lists them. */
const SubscribableEventTypeSchema = Type.Unsafe<SubscribableEventType>(
  Type.String({ enum: [...SUBSCRIBABLE_EVENT_TYPES], description: 'a subscribable event type' }),
);

const EventTypes = Type.Array(SubscribableEventTypeSchema, {
  minItems: 1,
  maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
  uniqueItems: true,
});
const Url = Type.String({ maxLength: 2048, description: 'https URL whose host resolves only to public addresses' });
const Description = Nullable(Type.String({ maxLength: 500 }));

export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    description: Nullable(Type.String()),
    event_types: Type.Array(SubscribableEventTypeSchema),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('auto_disabled')]),
    disabled_reason: Nullable(Type.String()),
    secret_preview: Type.String({ description: 'abbreviated secret, e.g. whsec_MfKQ…LaSw' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpoint', description: 'A webhook endpoint', examples: [EXAMPLES.webhookEndpoint] },
);
export const WebhookEndpointList = ListOf(WebhookEndpoint, 'WebhookEndpointList');
export const DeletedWebhookEndpoint = DeletedSchema('webhook_endpoint', 'DeletedWebhookEndpoint');

export const WebhookEndpointWithSecret = Type.Composite(
  [
    WebhookEndpoint,
    Type.Object({
      secret: Type.String({ description: 'the raw signing secret, whsec_ + base64; shown only in this response' }),
    }),
  ],
  {
    $id: 'WebhookEndpointWithSecret',
    description: 'A webhook endpoint with its signing secret, shown only when created or rotated',
    examples: [EXAMPLES.webhookEndpointWithSecret],
  },
);

export const CreateWebhookEndpoint = Type.Object(
  { url: Url, description: Type.Optional(Description), event_types: EventTypes },
  { $id: 'CreateWebhookEndpointRequest', additionalProperties: false, examples: [EXAMPLES.createWebhookEndpoint] },
);

export const UpdateWebhookEndpoint = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    event_types: Type.Optional(EventTypes),
    status: Type.Optional(
      Type.Unsafe<'enabled' | 'disabled'>(
        Type.String({ enum: ['enabled', 'disabled'], description: 'auto_disabled is set only by the service' }),
      ),
    ),
  },
  { $id: 'UpdateWebhookEndpointRequest', additionalProperties: false, examples: [EXAMPLES.updateWebhookEndpoint] },
);

const DELIVERY_STATUSES = ['pending', 'success', 'failed', 'exhausted'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('webhook_delivery'),
    endpoint_id: Uuid,
    event_id: Type.String({ description: 'equals the webhook-id header' }),
    event_type: Type.String(),
    status: Type.Union(DELIVERY_STATUSES.map((status) => Type.Literal(status))),
    attempt: Type.Integer(),
    response_status: Nullable(Type.Integer()),
    response_ms: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    next_retry_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'WebhookDelivery',
    description: 'One event sent to one endpoint, with its latest attempt',
    examples: [EXAMPLES.webhookDelivery],
  },
);
export const WebhookDeliveryList = ListOf(WebhookDelivery, 'WebhookDeliveryList');

/** The response headers an attempt keeps (src/webhooks/sender.ts), when the response had them. */
const KeptHeader = Type.Optional(Type.String({ maxLength: 256 }));

export const WebhookDeliveryAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: '1 for the first try, up to 7' }),
    response_status: Nullable(Type.Integer({ description: 'the HTTP status; null when no response arrived' })),
    response_ms: Nullable(Type.Integer({ description: 'from the start of the attempt to its outcome' })),
    error: Nullable(
      Type.String({ description: 'why it failed (e.g. `HTTP 503`, a timeout, a refused connection); null on success' }),
    ),
    response_headers: Nullable(
      Type.Object(
        {
          'content-type': KeptHeader,
          'content-length': KeptHeader,
          location: KeptHeader,
          'retry-after': KeptHeader,
          date: KeptHeader,
          server: KeptHeader,
        },
        {
          additionalProperties: false,
          description:
            'these six headers of the response, those it had (values cut to 256 characters); null when no response arrived',
        },
      ),
    ),
    response_body: Nullable(
      Type.String({
        description:
          'the first 1,024 bytes of the response body as UTF-8 (bytes that are not UTF-8, and NUL, as U+FFFD); null when no response arrived',
      }),
    ),
    response_body_truncated: Type.Boolean({ description: 'the body was longer than `response_body` shows' }),
    created_at: Timestamp,
  },
  {
    $id: 'WebhookDeliveryAttempt',
    description: 'One HTTP attempt of a delivery, with a bounded copy of the response',
    examples: [EXAMPLES.webhookDeliveryAttempt],
  },
);

export const WebhookDeliveryDetail = Type.Composite(
  [
    WebhookDelivery,
    Type.Object({
      payload: Type.String({
        description:
          'the exact request body every attempt sends and signs (a JSON text), kept as long as the delivery (30 days)',
      }),
      attempts: Type.Array(ref(WebhookDeliveryAttempt), { description: 'every attempt made, oldest first' }),
    }),
  ],
  {
    $id: 'WebhookDeliveryDetail',
    description: 'A delivery with its payload and every attempt',
    examples: [EXAMPLES.webhookDeliveryDetail],
  },
);

export const WebhookListQuery = Type.Object(PaginationQuery);

export const WebhookDeliveryListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Array(
        Type.Unsafe<DeliveryStatus>(Type.String({ enum: [...DELIVERY_STATUSES], description: 'a delivery status' })),
        {
          minItems: 1,
          maxItems: DELIVERY_STATUSES.length,
          uniqueItems: true,
          description: 'only these statuses; repeat the parameter for several (`status=failed&status=exhausted`)',
        },
      ),
    ),
    created_gte: Type.Optional(
      Type.String({ format: 'date-time', description: 'only deliveries created at or after this time' }),
    ),
    created_lt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: `only deliveries created before this time (exclusive)${rangeEndRule('created')}`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const RecoverWebhookEndpoint = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description: 'recover the failed and exhausted deliveries created at or after this time (RFC 3339)',
    }),
  },
  {
    $id: 'RecoverWebhookEndpointRequest',
    additionalProperties: false,
    examples: [EXAMPLES.recoverWebhookEndpoint],
  },
);

export const WebhookRecovery = Type.Object(
  {
    object: Type.Literal('webhook_recovery'),
    endpoint_id: Uuid,
    since: Timestamp,
    redelivered: Type.Integer({
      minimum: 0,
      description: 'deliveries sent again by this call, each as a new delivery (as redeliver does)',
    }),
    already_pending: Type.Integer({
      minimum: 0,
      description: 'failed events skipped because a delivery of them to this endpoint is already pending',
    }),
    has_more: Type.Boolean({
      description: 'true when more failures remain than one call recovers (1,000): call again with the same `since`',
    }),
  },
  {
    $id: 'WebhookRecovery',
    description: 'What a recovery of an endpoint did',
    examples: [EXAMPLES.webhookRecovery],
  },
);
