/**
 * The API's operations as methods, one class per resource. Paths and shapes follow the
 * OpenAPI document; every id is put in the path URL-encoded.
 */
import { PageRequest, type Page } from './pagination.ts';
import type { Query, RequestOptions, Transport } from './transport.ts';
import type * as T from './types.ts';

const at = (template: string, id: string) => template.replace('{id}', encodeURIComponent(id));

function list<I extends { id: string }>(
  transport: Transport,
  path: string,
  params: { starting_after?: string } & Query = {},
  /** The list is always in the sync order (the door's copy), whatever `order` says. */
  syncOrderOnly = false,
): PageRequest<I> {
  const { starting_after, ...query } = params;
  // The sync order continues after the position of the last item seen: its updated_at and
  // id together (docs/sync.md), not after wherever that item has moved since.
  const position = (last: I | undefined): Query =>
    (syncOrderOnly || query.order === 'updated_asc') && last !== undefined && 'updated_at' in last
      ? { updated_gte: last.updated_at as string }
      : {};
  return new PageRequest<I>(
    (cursor, last) =>
      transport.request<Page<I>>('GET', path, { query: { ...query, ...position(last), starting_after: cursor } }),
    starting_after,
  );
}

export class ApiKey {
  constructor(private readonly transport: Transport) {}
  /** The key this client calls with: its scopes (`read`, `write`) and its organizer. Any valid key may ask. */
  get(): Promise<T.CurrentApiKey> {
    return this.transport.request('GET', '/v1/api_key');
  }
}

export class Events {
  constructor(private readonly transport: Transport) {}
  /** The whole catalog, newest first (drafts, past and archived included). */
  list(params: T.ListEventsParams = {}): PageRequest<T.Event> {
    return list(this.transport, '/v1/events', params);
  }
  /** Venue, event, performances and ticket types in one call; publishes unless `publish: false`. */
  create(body: T.CreateEventRequest, options?: RequestOptions): Promise<T.EventDetail> {
    return this.transport.request('POST', '/v1/events', { body, ...options });
  }
  get(id: string): Promise<T.EventDetail> {
    return this.transport.request('GET', at('/v1/events/{id}', id));
  }
  update(id: string, body: T.UpdateEventRequest, options?: RequestOptions): Promise<T.EventDetail> {
    return this.transport.request('PATCH', at('/v1/events/{id}', id), { body, ...options });
  }
  /** The event's schedule, soonest first. */
  listPerformances(id: string, params: T.ListEventPerformancesParams = {}): PageRequest<T.Performance> {
    return list(this.transport, at('/v1/events/{id}/performances', id), params);
  }
  /** What a sale of the event asks (registration questions), in the order they were added. */
  listQuestions(id: string, params: T.ListEventQuestionsParams = {}): PageRequest<T.RegistrationQuestion> {
    return list(this.transport, at('/v1/events/{id}/questions', id), params);
  }
  /**
   * The event's orders as CSV (docs/exports.md), one row per order and performance: the
   * Response once its headers arrive; stream `response.body` or read `response.text()`.
   */
  exportOrders(id: string, params: T.ExportParams = {}): Promise<Response> {
    return this.transport.download(at('/v1/events/{id}/exports/orders.csv', id), params);
  }
  /** The event's tickets (attendees) as CSV, with one column per registration question; as exportOrders. */
  exportTickets(id: string, params: T.ExportParams = {}): Promise<Response> {
    return this.transport.download(at('/v1/events/{id}/exports/tickets.csv', id), params);
  }
}

export class Performances {
  constructor(private readonly transport: Transport) {}
  get(id: string): Promise<T.Performance> {
    return this.transport.request('GET', at('/v1/performances/{id}', id));
  }
  /** What is left to sell, overall and per ticket type (a snapshot; a sale decides). */
  availability(id: string): Promise<T.Availability> {
    return this.transport.request('GET', at('/v1/performances/{id}/availability', id));
  }
  /** The performance as an iCalendar file (text, CRLF line ends), in the event's time zone. */
  async calendar(id: string): Promise<string> {
    const response = await this.transport.download(at('/v1/performances/{id}/calendar.ics', id), {}, 'text/calendar');
    return response.text();
  }
}

export class Orders {
  constructor(private readonly transport: Transport) {}
  /**
   * Newest first, or `order: 'updated_asc'` to poll for changes (docs/sync.md). A time
   * range whose `_lt` is not later than its `_gte` (`created_*`, `updated_*`) is a 400
   * naming the `_lt` parameter, never an empty page (docs/validation.md).
   */
  list(params: T.ListOrdersParams = {}): PageRequest<T.Order> {
    return list(this.transport, '/v1/orders', params);
  }
  /** A box-office sale; availability is taken atomically (400 when it does not fit). */
  create(body: T.CreateOrderRequest, options?: RequestOptions): Promise<T.OrderDetail> {
    return this.transport.request('POST', '/v1/orders', { body, ...options });
  }
  get(id: string, params: T.GetOrderParams = {}): Promise<T.OrderDetail> {
    return this.transport.request('GET', at('/v1/orders/{id}', id), { query: { 'expand[]': params.expand } });
  }
  /**
   * The order's PDF tickets (docs/tickets.md, "PDF tickets"): one page per ticket still
   * valid, as the buyer receives them; the file's bytes. 409 `invalid_state` when no
   * ticket is left (all cancelled or refunded).
   */
  async ticketsPdf(id: string): Promise<Uint8Array> {
    const response = await this.transport.download(at('/v1/orders/{id}/tickets.pdf', id), {}, 'application/pdf');
    return new Uint8Array(await response.arrayBuffer());
  }
  /**
   * The order's "Add to Google Wallet" link (docs/tickets.md, "Google Wallet"), as the
   * buyer receives it. 404 when the organizer has no Google Wallet settings; 409
   * `invalid_state` when no ticket is left (all cancelled or refunded).
   */
  googleWallet(id: string): Promise<T.GoogleWalletLink> {
    return this.transport.request('GET', at('/v1/orders/{id}/google_wallet', id));
  }
}

export class Tickets {
  constructor(private readonly transport: Transport) {}
  /** As Orders.list(): newest first or in the sync order, and the same rule for time ranges. */
  list(params: T.ListTicketsParams = {}): PageRequest<T.Ticket> {
    return list(this.transport, '/v1/tickets', params);
  }
  get(id: string): Promise<T.Ticket> {
    return this.transport.request('GET', at('/v1/tickets/{id}', id));
  }
  /**
   * The ticket's Apple Wallet pass (docs/tickets.md, "Apple Wallet"): the .pkpass file's
   * bytes. 409 `invalid_state` when the organizer has no Apple Wallet settings, or the
   * ticket is no longer valid.
   */
  async applePass(id: string): Promise<Uint8Array> {
    const response = await this.transport.download(
      at('/v1/tickets/{id}/pass.pkpass', id),
      {},
      'application/vnd.apple.pkpass',
    );
    return new Uint8Array(await response.arrayBuffer());
  }
  /** Admits the ticket once; a second admit is a 409 `invalid_state`. */
  checkIn(id: string, options?: RequestOptions): Promise<T.Ticket> {
    return this.transport.request('POST', at('/v1/tickets/{id}/check_in', id), options);
  }
  /**
   * A door's local copy: the tickets cut down to what a door decides and shows, always in
   * the sync order, up to 1,000 a page; pass the last item's `updated_at` as `updated_gte`
   * and its id as `starting_after` to read only what changed (docs/door.md).
   */
  listForDoor(params: T.ListDoorTicketsParams = {}): PageRequest<T.DoorTicket> {
    return list(this.transport, '/v1/door_tickets', params, true);
  }
}

/** Door scans: the upload of a door device's scans and their outcomes (docs/check-ins.md). */
export class CheckIns {
  constructor(private readonly transport: Transport) {}
  /**
   * Up to 500 scans, applied in `scanned_at` order; every scan's outcome, in the order
   * sent. A scan sent again (its `device_scan_id`) is answered from its first outcome.
   */
  upload(scans: T.UploadCheckInsRequest['data'], options?: RequestOptions): Promise<T.UploadedCheckIns> {
    return this.transport.request('POST', '/v1/check_ins', { body: { data: scans }, ...options });
  }
  /** The uploaded scans, newest first; `outcome: 'already_checked_in'` lists the double entries. */
  list(params: T.ListCheckInsParams = {}): PageRequest<T.CheckInScan> {
    return list(this.transport, '/v1/check_ins', params);
  }
}

/** The door device a device key belongs to (docs/door.md); its pairing is Marquee.claimDoorDevice(). */
export class DoorDevice {
  constructor(private readonly transport: Transport) {}
  /** Its name, organizer, performances and online-only setting; a device key only. */
  get(): Promise<T.DoorDeviceSelf> {
    return this.transport.request('GET', '/v1/door_device');
  }
}

export class WebhookEndpoints {
  constructor(private readonly transport: Transport) {}
  list(params: T.ListWebhookEndpointsParams = {}): PageRequest<T.WebhookEndpoint> {
    return list(this.transport, '/v1/webhook_endpoints', params);
  }
  /** The response is the only one that carries the signing secret. */
  create(body: T.CreateWebhookEndpointRequest, options?: RequestOptions): Promise<T.WebhookEndpointWithSecret> {
    return this.transport.request('POST', '/v1/webhook_endpoints', { body, ...options });
  }
  get(id: string): Promise<T.WebhookEndpoint> {
    return this.transport.request('GET', at('/v1/webhook_endpoints/{id}', id));
  }
  update(id: string, body: T.UpdateWebhookEndpointRequest, options?: RequestOptions): Promise<T.WebhookEndpoint> {
    return this.transport.request('PATCH', at('/v1/webhook_endpoints/{id}', id), { body, ...options });
  }
  delete(id: string): Promise<T.DeletedWebhookEndpoint> {
    return this.transport.request('DELETE', at('/v1/webhook_endpoints/{id}', id));
  }
  /** A new secret; the old one stops verifying at once. */
  rotateSecret(id: string, options?: RequestOptions): Promise<T.WebhookEndpointWithSecret> {
    return this.transport.request('POST', at('/v1/webhook_endpoints/{id}/rotate_secret', id), options);
  }
  /**
   * The delivery log, newest first; `status` takes one or several statuses, `created_gte`/`created_lt`
   * a time range (a `created_lt` not later than `created_gte` is a 400 naming `created_lt`).
   */
  listDeliveries(id: string, params: T.ListWebhookDeliveriesParams = {}): PageRequest<T.WebhookDelivery> {
    return list(this.transport, at('/v1/webhook_endpoints/{id}/deliveries', id), params);
  }
  /**
   * Redelivers every failed or exhausted delivery since `since` (at most 1,000 a call: call
   * again while `has_more`); events already pending again are skipped and counted.
   */
  recover(id: string, body: T.RecoverWebhookEndpointRequest, options?: RequestOptions): Promise<T.WebhookRecovery> {
    return this.transport.request('POST', at('/v1/webhook_endpoints/{id}/recover', id), { body, ...options });
  }
}

export class WebhookDeliveries {
  constructor(private readonly transport: Transport) {}
  /** The delivery with its payload and every attempt (a bounded copy of each response). */
  get(id: string): Promise<T.WebhookDeliveryDetail> {
    return this.transport.request('GET', at('/v1/webhook_deliveries/{id}', id));
  }
  /** The same event again to the same endpoint, with a fresh retry budget and the same webhook-id. */
  redeliver(id: string, options?: RequestOptions): Promise<T.WebhookDelivery> {
    return this.transport.request('POST', at('/v1/webhook_deliveries/{id}/redeliver', id), options);
  }
}
