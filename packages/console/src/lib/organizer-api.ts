/**
 * The organizer's settings, an event's report and the audit log on the dashboard API
 * (docs/dashboard.md, "Organizer settings", "Reports", "Audit log"): the shapes the
 * screens read and the calls that fetch them, with the session's cookie and CSRF token
 * (./dashboard.ts); a refusal is thrown as the SDK's MarqueeApiError, as everywhere.
 */
import { answer, currentCsrfToken, sessionFetch } from './dashboard.ts';

export interface OrganizerSettings {
  id: string;
  object: 'organizer';
  name: string;
  timezone: string;
  currency: string;
  box_office_fee_minor: number;
  tax_rate_bps: number;
  contact_email: string | null;
  sender_email: string | null;
  /** True once the organizer has an order: its currency can no longer change. */
  currency_locked: boolean;
  created_at: string;
  updated_at: string;
}

export type SettingsChange = Partial<
  Pick<
    OrganizerSettings,
    'name' | 'timezone' | 'currency' | 'box_office_fee_minor' | 'tax_rate_bps' | 'contact_email' | 'sender_email'
  >
>;

export type ReportInterval = 'hour' | 'day';

export interface ReportTicketType {
  ticket_type_id: string;
  name: string;
  price_minor: number;
  cap: number | null;
  sold: number;
  remaining: number;
  checked_in: number;
  /** Active holds of this type (a hold may name no type: the performance's `held` counts those too). */
  held?: number;
  refunded: number;
  cancelled: number;
  revenue_minor: number;
}

export interface ReportPerformance {
  performance_id: string;
  starts_at: string;
  title: string | null;
  capacity: number;
  sold: number;
  remaining: number;
  checked_in: number;
  held: number;
  ticket_types: ReportTicketType[];
}

export interface SalesPeriod {
  period_start: string;
  orders: number;
  tickets: number;
  /** Money in (payments) less money out (refunds) in the period. */
  revenue_minor: number;
}

export interface EventReport {
  object: 'event_report';
  event_id: string;
  currency: string;
  timezone: string;
  generated_at: string;
  totals: {
    capacity: number;
    sold: number;
    remaining: number;
    checked_in: number;
    refunded: number;
    cancelled: number;
    held: number;
    orders: number;
    gross_minor: number;
    fees_minor: number;
    taxes_minor: number;
    refunded_minor: number;
    net_minor: number;
  };
  /** The gross by how it was paid. */
  by_tender: { tender: string; orders: number; amount_minor: number }[];
  performances: ReportPerformance[];
  /** Periods with activity only, oldest first. */
  sales_over_time: SalesPeriod[];
}

export type ActorType = 'user' | 'api_key' | 'operator';

export interface AuditEntry {
  id: string;
  object: 'audit_entry';
  occurred_at: string;
  organizer_id: string;
  actor: { type: ActorType; id: string | null; label: string };
  action: string;
  target: { type: string; id: string | null };
  changes: Record<string, { before: unknown; after: unknown }>;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

/** The audit log's filters, named as the API's query (GET /dashboard/v1/audit_log). */
export interface AuditFilters {
  actor_type?: ActorType;
  actor_id?: string;
  action?: string;
  target_type?: string;
  target_id?: string;
  occurred_gte?: string;
  occurred_lt?: string;
}

interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

function queryString(query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** One JSON request to /dashboard/v1 with the session: the body of a 2xx, or the refusal thrown. */
function call<T>(method: 'GET' | 'PATCH', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const csrf = currentCsrfToken();
  if (method !== 'GET' && csrf !== undefined) headers['x-csrf-token'] = csrf;
  return answer(
    (async () => {
      const response = await sessionFetch(`${window.location.origin}/dashboard/v1${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Not JSON: kept as text, which answer() shows as the detail.
      }
      return response.ok ? { data: parsed as T, response } : { error: parsed, response };
    })(),
  );
}

export const getSettings = () => call<OrganizerSettings>('GET', '/organizer');

export const updateSettings = (change: SettingsChange) => call<OrganizerSettings>('PATCH', '/organizer', change);

export const getEventReport = (id: string, interval: ReportInterval) =>
  call<EventReport>('GET', `/reports/events/${encodeURIComponent(id)}${queryString({ interval })}`);

export const listAuditLog = (filters: AuditFilters, page: { limit: number; starting_after?: string }) =>
  call<Page<AuditEntry>>('GET', `/audit_log${queryString({ ...filters, ...page })}`);

/** The CSV download of the entries the filters select: a plain GET, which the session cookie authenticates. */
export const auditExportHref = (filters: AuditFilters): string =>
  `/dashboard/v1/audit_log/export${queryString({ ...filters })}`;
