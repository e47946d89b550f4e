/** The public shapes of webhook endpoints and deliveries (schemas WebhookEndpoint, WebhookEndpointWithSecret, WebhookDelivery). */
import type { DeliveryRow, EndpointRow } from '../../db/repositories/webhooks.ts';
import { secretPreview } from '../../webhooks/signature.ts';
import type { SubscribableEventType } from '../../webhooks/outbox.ts';

export function presentEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    description: row.description,
    event_types: row.event_types as SubscribableEventType[],
    status: row.status,
    disabled_reason: row.disabled_reason,
    secret_preview: secretPreview(row.secret),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The create and rotate responses: the endpoint plus its raw secret, shown only there. */
export function presentEndpointWithSecret(result: { row: EndpointRow; secret: string }) {
  return { ...presentEndpoint(result.row), secret: result.secret };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt: row.attempt,
    response_status: row.response_status,
    response_ms: row.response_ms,
    error: row.error,
    next_retry_at: row.next_retry_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
