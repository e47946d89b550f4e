/**
 * The Marquee SDK: a typed client for the ticketing API (docs/sdk.md in the service's
 * repository).
 *
 *   const marquee = new Marquee({ apiKey: process.env.MARQUEE_API_KEY!, baseUrl: 'https://tickets.example.com' });
 *   const order = await marquee.orders.create({ items, buyer, tender: 'cash' });
 *
 * A page served by Marquee itself (the organizer console) uses the signed-in person's
 * session instead of a key, against the dashboard's copy of every operation
 * (docs/dashboard.md): the cookie goes by itself, the CSRF token from `csrfToken()`.
 *
 *   const dashboard = new Marquee({ session: { csrfToken: () => token }, baseUrl: `${location.origin}/dashboard` });
 */
import {
  ApiKey,
  CheckIns,
  DoorDevice,
  Events,
  Orders,
  Performances,
  Tickets,
  WebhookDeliveries,
  WebhookEndpoints,
} from './resources.ts';
import { Transport, type TransportOptions } from './transport.ts';
import { verifyWebhook, type WebhookHeaders } from './webhooks.ts';
import type { ClaimedDoorDevice, WebhookEvent } from './types.ts';

export type MarqueeOptions = TransportOptions;

export class Marquee {
  readonly apiKey: ApiKey;
  readonly events: Events;
  readonly performances: Performances;
  readonly orders: Orders;
  readonly tickets: Tickets;
  readonly checkIns: CheckIns;
  readonly doorDevice: DoorDevice;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhookDeliveries: WebhookDeliveries;
  readonly webhooks = {
    /** verifyWebhook(payload, headers, secret): the delivery's typed event, or a throw. */
    verify: (payload: string, headers: WebhookHeaders, secret: string): WebhookEvent =>
      verifyWebhook(payload, headers, secret),
  };

  /**
   * Pairs a door device: trades the one-time pairing code shown in the dashboard for the
   * device's key (scope `check_in`, limited to its performances) and the device, once. No
   * credential is sent. Then `new Marquee({ apiKey: claimed.api_key, baseUrl })`.
   */
  static claimDoorDevice(
    token: string,
    options: Omit<MarqueeOptions, 'apiKey' | 'session'>,
  ): Promise<ClaimedDoorDevice> {
    return new Transport(options, { anonymous: true }).request('POST', '/v1/device_claims', { body: { token } });
  }

  constructor(options: MarqueeOptions) {
    const transport = new Transport(options);
    this.apiKey = new ApiKey(transport);
    this.events = new Events(transport);
    this.performances = new Performances(transport);
    this.orders = new Orders(transport);
    this.tickets = new Tickets(transport);
    this.checkIns = new CheckIns(transport);
    this.doorDevice = new DoorDevice(transport);
    this.webhookEndpoints = new WebhookEndpoints(transport);
    this.webhookDeliveries = new WebhookDeliveries(transport);
  }
}

export { MarqueeApiError, MarqueeConnectionError, MarqueeError, type Problem } from './errors.ts';
export { PageRequest, type Page } from './pagination.ts';
export type { RequestOptions, SessionAuth } from './transport.ts';
export { verifyWebhook, type WebhookHeaders } from './webhooks.ts';
export type * from './types.ts';
