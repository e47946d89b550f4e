/**
 * The public shapes of webhook endpoints and deliveries (schemas WebhookEndpoint,
 * WebhookEndpointWithSecret, WebhookDelivery, WebhookDeliveryDetail, WebhookRecovery).
 */
import type { DeliveryRow } from '../../db/repositories/webhook-deliveries.ts';
import type { EndpointRow } from '../../db/repositories/webhook-endpoints.ts';
import type { DeliveryAttemptLogEntry } from '../../db/schema.ts';
import type { RecoveryResult } from '../../webhooks/deliveries.ts';
import { secretPreview } from '../../webhooks/signature.ts';
import type { SubscribableEventType } from '../../outbox/domain-events.ts';

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

/** A delivery with its payload and attempts; entries logged before responses were kept show none. */
export function presentDeliveryDetail(detail: { row: DeliveryRow; payload: string }) {
  return {
    ...presentDelivery(detail.row),
    payload: detail.payload,
    attempts: detail.row.attempt_log.map(presentAttempt),
  };
}

function presentAttempt(entry: DeliveryAttemptLogEntry) {
  const response = entry.response ?? null;
  return {
    attempt: entry.attempt,
    response_status: entry.response_status,
    response_ms: entry.response_ms,
    error: entry.error,
    response_headers: response?.headers ?? null,
    response_body: response?.body ?? null,
    response_body_truncated: response?.body_truncated ?? false,
    created_at: new Date(entry.at),
  };
}

export function presentRecovery(endpointId: string, since: Date, result: RecoveryResult) {
  return {
    object: 'webhook_recovery' as const,
    endpoint_id: endpointId,
    since,
    redelivered: result.redelivered,
    already_pending: result.alreadyPending,
    has_more: result.hasMore,
  };
}
