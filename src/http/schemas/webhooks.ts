import { Type } from '@sinclair/typebox';
import { SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from '../../webhooks/outbox.ts';
import { DeletedSchema, ListOf, Nullable, PaginationQuery, Timestamp, Uuid } from './common.ts';
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

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('webhook_delivery'),
    endpoint_id: Uuid,
    event_id: Type.String({ description: 'equals the webhook-id header' }),
    event_type: Type.String(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('success'),
      Type.Literal('failed'),
      Type.Literal('exhausted'),
    ]),
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

export const WebhookListQuery = Type.Object(PaginationQuery);
