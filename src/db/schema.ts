/**
 * Kysely's view of the tables in migrations/. Column names stay snake_case, as in
 * SQL and in the public API, so rows need no renaming on the way in or out.
 * Add a table here in the same change as its migration.
 */
import type { ColumnType, Generated } from 'kysely';

/** A timestamp column: read as Date, written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp column with a database default. */
type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** A jsonb column. */
type Json<T> = ColumnType<T, string, string>;

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
  /** Where buyers reach the organizer (migrations/0018_organizer_contact.sql). */
  contact_email: string | null;
  /** The Reply-To of the buyer's mails, before contact_email (docs/dashboard.md, "Organizer settings"). */
  sender_email: string | null;
  /** The language of its events' mails, PDFs and passes unless an event sets its own (docs/tickets.md); null: English. */
  default_language: string | null;
  /** The paper size of its PDF tickets (docs/tickets.md). */
  ticket_paper_size: Generated<'a4' | 'letter'>;
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
  /** The user who created the key in the dashboard; null for the admin API and the first start. */
  created_by: string | null;
  created_at: CreatedAt;
}

interface DomainEventsTable {
  id: Generated<string>;
  organizer_id: string;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

interface VenuesTable {
  id: Generated<string>;
  organizer_id: string;
  name: string;
  is_online: Generated<boolean>;
  created_at: CreatedAt;
}

interface CategoriesTable {
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
  /** The language of what its buyers receive (docs/tickets.md); null: the organizer's default. */
  language: string | null;
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
type WebhookEndpointStatus = 'enabled' | 'disabled' | 'auto_disabled';
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
  /** Every attempt made, oldest first (migrations/0008_delivery_attempt_log.sql). */
  attempt_log: ColumnType<DeliveryAttemptLogEntry[], never, never>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface DeliveryAttemptLogEntry {
  attempt: number;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  /** When the attempt was recorded (an ISO timestamp). */
  at: string;
  /**
   * A bounded copy of the response (docs/webhooks.md, "The delivery log"); null when no
   * response arrived, absent from entries recorded before the copy was kept.
   */
  response?: AttemptResponseCopy | null;
}

/** What an attempt keeps of a response: a few headers and the start of the body. */
export interface AttemptResponseCopy {
  /** The allow-listed headers present in the response, names in lower case. */
  headers: Record<string, string>;
  /** The body's first bytes (at most 1 KB) as UTF-8, invalid bytes and NUL replaced. */
  body: string;
  /** The body had more bytes than `body` shows. */
  body_truncated: boolean;
}

export interface Database {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

// Orders, tickets, questions, contacts, e-mail jobs (migrations/0003_orders.sql).
interface OrdersTable {
  id: Generated<string>;
  organizer_id: string;
  order_no: string;
  status: 'unpaid' | 'placed' | 'fulfilled' | 'cancelled';
  channel: Generated<'box_office' | 'online'>;
  tender: 'cash' | 'pay_later' | 'free';
  buyer_first_name: string;
  buyer_last_name: string | null;
  buyer_email: string;
  buyer_phone: string | null;
  currency: string;
  total_minor: number;
  etickets_sent_at: Timestamp | null;
  disputed_at: Timestamp | null;
  paid_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

interface OrderTransactionsTable {
  id: Generated<string>;
  organizer_id: string;
  order_id: string;
  transaction_no: string;
  position: number;
  event_id: string;
  performance_id: string;
  delivery_method: 'eticket';
  items_total_minor: number;
  surcharges_minor: number;
  taxes_minor: number;
  service_fees_minor: number;
  total_minor: number;
  created_at: CreatedAt;
}

interface TicketsTable {
  id: Generated<string>;
  organizer_id: string;
  order_id: string;
  order_transaction_id: string;
  order_no: string;
  position: number;
  ticket_no: string;
  serial_no: string;
  status: 'purchased' | 'checked_in' | 'refunded' | 'cancelled';
  event_id: string;
  performance_id: string;
  ticket_type_id: string;
  holder_first_name: string;
  holder_last_name: string | null;
  holder_email: string;
  unit_price_minor: number;
  fee_minor: number;
  tax_minor: number;
  total_minor: number;
  checked_in_at: Timestamp | null;
  /** The door device that admitted the ticket; null when an integration or a person did. */
  checked_in_device_id: Generated<string | null>;
  transferred_at: Timestamp | null;
  refund_id: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface PaymentsTable {
  id: Generated<string>;
  organizer_id: string;
  order_id: string;
  tender: 'cash' | 'card' | 'bankTransfer';
  amount_minor: number;
  currency: string;
  created_at: CreatedAt;
}

export interface RefundsTable {
  id: Generated<string>;
  organizer_id: string;
  order_id: string;
  mode: 'cash' | 'card';
  status: 'pending' | 'refunded' | 'failed';
  amount_minor: number;
  currency: string;
  ticket_count: number;
  settled_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface QuestionOption {
  key: string;
  label: string;
}

export type QuestionType = 'text' | 'number' | 'date' | 'email' | 'phone' | 'select' | 'multi_select';

export interface RegistrationQuestionsTable {
  id: Generated<string>;
  organizer_id: string;
  event_id: string;
  key: string;
  label: string;
  type: QuestionType;
  options: Json<QuestionOption[]>;
  required: Generated<boolean>;
  per_attendee: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface RegistrationAnswersTable {
  id: Generated<string>;
  organizer_id: string;
  order_id: string;
  question_id: string | null;
  position: number;
  key: string;
  label: string;
  ticket_id: string | null;
  ticket_no: string | null;
  value: Json<string | string[]>;
  value_labels: Json<string[] | null> | null;
  created_at: CreatedAt;
}

interface ContactsTable {
  id: Generated<string>;
  organizer_id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  phone: string | null;
  orders_count: Generated<number>;
  first_order_at: Timestamp;
  last_order_at: Timestamp;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface EmailJobsTable {
  id: Generated<string>;
  /** Null for a password reset, which belongs to a user, not an organizer. */
  organizer_id: string | null;
  /** Null for an account e-mail (invitation, password reset). */
  order_id: string | null;
  kind: 'receipt' | 'etickets' | 'invitation' | 'password_reset';
  recipient: string;
  subject: string;
  status: Generated<'pending' | 'sending' | 'sent' | 'failed' | 'skipped'>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  next_attempt_at: Timestamp;
  locked_until: Timestamp | null;
  last_error: string | null;
  message_id: string | null;
  sent_at: Timestamp | null;
  /** An account e-mail's one-time link, erased once the mail is sent or has failed. */
  link: string | null;
  /** What an account e-mail says besides its link (organizer name, inviter, role). */
  account_data: Json<Record<string, string>> | null;
  /** What a sent mail left out and why (a wallet pass that could not be signed). */
  notes: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface Database {
  orders: OrdersTable;
  order_transactions: OrderTransactionsTable;
  tickets: TicketsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  registration_questions: RegistrationQuestionsTable;
  registration_answers: RegistrationAnswersTable;
  contacts: ContactsTable;
  email_jobs: EmailJobsTable;
}

// Idempotency keys (migrations/0005_idempotency.sql; docs/idempotency.md).
export interface IdempotencyKeysTable {
  organizer_id: string;
  key: string;
  request_hash: string;
  /** The API key that sent the first request, or null when a signed-in user did (user_id). */
  api_key_id: string | null;
  user_id: string | null;
  method: string;
  path: string;
  status: 'in_progress' | 'completed';
  lease_token: string | null;
  locked_until: Timestamp | null;
  response_status: number | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: string | null;
  created_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface Database {
  idempotency_keys: IdempotencyKeysTable;
}

// People (migrations/0015_people.sql; docs/dashboard.md).
export type Role = 'owner' | 'manager' | 'box_office' | 'door' | 'viewer';

export interface UsersTable {
  id: Generated<string>;
  email: string;
  name: string;
  password_hash: string;
  totp_secret: string | null;
  totp_last_step: ColumnType<string | null, string | number | null, string | number | null>;
  totp_pending_secret: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

interface UserRecoveryCodesTable {
  user_id: string;
  code_hash: Buffer;
  used_at: Timestamp | null;
}

export interface MembershipsTable {
  id: Generated<string>;
  organizer_id: string;
  user_id: string | null;
  email: string;
  role: Role;
  status: 'invited' | 'active';
  invited_by: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface UserSessionsTable {
  id: Generated<string>;
  token_hash: Buffer;
  user_id: string;
  organizer_id: string;
  csrf_token: string;
  user_agent: string | null;
  ip: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface OneTimeLinksTable {
  id: Generated<string>;
  token_hash: Buffer;
  purpose: 'invitation' | 'password_reset' | 'owner_setup';
  user_id: string | null;
  membership_id: string | null;
  organizer_id: string | null;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface Database {
  users: UsersTable;
  user_recovery_codes: UserRecoveryCodesTable;
  memberships: MembershipsTable;
  user_sessions: UserSessionsTable;
  one_time_links: OneTimeLinksTable;
}

// The audit log (migrations/0017_audit_log.sql; docs/dashboard.md, "Audit log"). Append-only.
export type AuditActorType = 'user' | 'api_key' | 'operator';

/** {field: {before, after}}: the fields of the target that changed. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

export interface AuditLogTable {
  id: Generated<string>;
  organizer_id: string;
  occurred_at: Timestamp;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string | null;
  changes: Json<AuditChanges>;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

export interface Database {
  audit_log: AuditLogTable;
}

// Door devices and their uploaded scans (migrations/0019_door_devices.sql; docs/door.md).
export type CheckInOutcome = 'admitted' | 'already_checked_in' | 'not_admittable';
/** Why a scan was not admittable (src/domain/tickets/admission.ts decides). */
export type CheckInRefusal = 'unknown' | 'wrong_performance' | 'refunded' | 'cancelled' | 'unpaid';

export interface DoorDevicesTable {
  id: Generated<string>;
  organizer_id: string;
  name: string;
  performance_ids: string[];
  online_only: Generated<boolean>;
  provisioning_token_hash: Buffer | null;
  provisioning_expires_at: Timestamp | null;
  api_key_id: string | null;
  claimed_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_synced_at: Timestamp | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

interface CheckInScansTable {
  id: Generated<string>;
  organizer_id: string;
  api_key_id: string;
  device_id: string | null;
  device_scan_id: string;
  ticket_id: string;
  performance_id: string | null;
  scanned_at: Timestamp;
  outcome: CheckInOutcome;
  reason: CheckInRefusal | null;
  admitted_at: Timestamp | null;
  admitted_device_id: string | null;
  received_at: CreatedAt;
}

export interface Database {
  door_devices: DoorDevicesTable;
  check_in_scans: CheckInScansTable;
}

/** An organizer's Apple Wallet pass certificate (migrations/0022_apple_wallet.sql). */
export interface AppleWalletSettingsTable {
  organizer_id: string;
  pass_type_identifier: string;
  team_identifier: string;
  certificate_pem: string;
  /** The private key PEM sealed with WALLET_SECRETS_KEY (src/lib/secret-box.ts). */
  sealed_private_key: string;
  wwdr_certificate_pem: string;
  certificate_expires_at: Timestamp;
  background_color: string | null;
  foreground_color: string | null;
  label_color: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface Database {
  apple_wallet_settings: AppleWalletSettingsTable;
}

/** An organizer's Google Wallet issuer and service-account key (migrations/0023_google_wallet.sql). */
export interface GoogleWalletSettingsTable {
  organizer_id: string;
  /** The Google Wallet issuer id: digits. */
  issuer_id: string;
  service_account_email: string;
  /** The service account's private key PEM sealed with WALLET_SECRETS_KEY (src/lib/secret-box.ts). */
  sealed_private_key: string;
  /** The key's private_key_id, the JWT header's `kid`. */
  key_id: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface Database {
  google_wallet_settings: GoogleWalletSettingsTable;
}
