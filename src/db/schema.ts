/**
 * Kysely's view of the tables in migrations/. Column names stay snake_case, as in
 * SQL and in the public API, so rows need no renaming on the way in or out.
 * Add a table here in the same change as its migration.
 */
import type { ColumnType, Generated } from 'kysely';

/** A timestamp column: read as Date, written as Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp column with a database default. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** A jsonb column. */
export type Json<T> = ColumnType<T, string, string>;

export interface Translation {
  locale: string;
  title: string | null;
  description: string | null;
}

export interface OrganizersTable {
  id: Generated<string>;
  name: string;
  timezone: Generated<string>;
  currency: Generated<string>;
  box_office_fee_minor: Generated<number>;
  tax_rate_bps: Generated<number>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<string>;
  organizer_id: string;
  name: string | null;
  key_hash: Buffer;
  key_preview: string;
  scopes: string[];
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface DomainEventsTable {
  id: Generated<string>;
  organizer_id: string;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface VenuesTable {
  id: Generated<string>;
  organizer_id: string;
  name: string;
  is_online: Generated<boolean>;
  created_at: CreatedAt;
}

export interface CategoriesTable {
  id: Generated<string>;
  organizer_id: string;
  name: string;
  created_at: CreatedAt;
}

export interface EventsTable {
  id: Generated<string>;
  organizer_id: string;
  venue_id: string;
  category_id: string;
  title: string;
  default_locale: Generated<string>;
  translations: Json<Translation[]>;
  admission_type: Generated<'general_admission' | 'reserved_seating'>;
  image_url: string | null;
  contact_email: string | null;
  timezone: string;
  status: 'draft' | 'published';
  published_at: Timestamp | null;
  is_archived: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface PerformancesTable {
  id: Generated<string>;
  organizer_id: string;
  event_id: string;
  title: string | null;
  translations: Json<Translation[]>;
  starts_at: Timestamp;
  ends_at: Timestamp;
  capacity: number;
  sold_count: Generated<number>;
  online_sales_enabled: Generated<boolean>;
  box_office_sales_enabled: Generated<boolean>;
  status: 'draft' | 'published' | 'cancelled';
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface TicketTypesTable {
  id: Generated<string>;
  organizer_id: string;
  event_id: string;
  name: string;
  description: string | null;
  translations: Json<Translation[]>;
  sort_order: number;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface PricesTable {
  id: Generated<string>;
  organizer_id: string;
  ticket_type_id: string;
  performance_id: string;
  seat_category_key: Generated<string>;
  price_minor: number;
  limited_quantity: number | null;
  sold_count: Generated<number>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
}

export interface HoldsTable {
  id: Generated<string>;
  organizer_id: string;
  performance_id: string;
  ticket_type_id: string | null;
  kind: 'cart' | 'allocation';
  quantity: number;
  expires_at: Timestamp | null;
  released_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface Database {
  organizers: OrganizersTable;
  api_keys: ApiKeysTable;
  domain_events: DomainEventsTable;
  venues: VenuesTable;
  categories: CategoriesTable;
  events: EventsTable;
  performances: PerformancesTable;
  ticket_types: TicketTypesTable;
  prices: PricesTable;
  holds: HoldsTable;
}

// Webhooks (migrations/0004_webhooks.sql). Declared as a merged part of Database so
// appends by other areas never touch the same lines.
export type WebhookEndpointStatus = 'enabled' | 'disabled' | 'auto_disabled';
export type WebhookDeliveryStatus = 'pending' | 'success' | 'failed' | 'exhausted';

export interface WebhookEndpointsTable {
  id: Generated<string>;
  organizer_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  status: ColumnType<WebhookEndpointStatus, WebhookEndpointStatus | undefined, WebhookEndpointStatus>;
  disabled_reason: string | null;
  secret: string;
  reenabled_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  organizer_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempt: Generated<number>;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  next_retry_at: Timestamp | null;
  locked_until: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface WebhookDeliveryAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempt: number;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  created_at: CreatedAt;
}

export interface Database {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
}
