/**
 * Verifying a webhook delivery: the Standard Webhooks signature over the raw body, the
 * timestamp's freshness (5 minutes), then the body as a typed event.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './types.ts';

/** Headers as Node's `req.headers` or a Fetch `Headers` object gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Returns the delivery's event when its signature is valid and its timestamp fresh;
 * throws otherwise. `payload` must be the raw body, exactly as received.
 */
export function verifyWebhook(payload: string, headers: WebhookHeaders, secret: string): WebhookEvent {
  const signed: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    signed[name] = Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  }
  return new Webhook(secret).verify(payload, signed) as WebhookEvent;
}
