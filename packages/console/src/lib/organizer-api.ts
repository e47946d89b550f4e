/**
 * The organizer's settings, an event's report and the audit log on the dashboard API
 * (docs/dashboard.md, "Organizer settings", "Reports", "Audit log"): the shapes the
 * screens read, as the generated types say them (../generated/dashboard.ts), and the
 * calls, through the session's typed client (./dashboard.ts: cookie, CSRF token, a
 * refusal thrown as the SDK's MarqueeApiError).
 */
import { MarqueeApiError } from '@marquee/sdk';
import type { paths } from '../generated/dashboard.ts';
import { answer, dashboard } from './dashboard.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type OrganizerSettings = Json<paths['/dashboard/v1/organizer']['get']['responses'][200]>;
export type SettingsChange = Json<NonNullable<paths['/dashboard/v1/organizer']['patch']['requestBody']>>;

export type EventReport = Json<paths['/dashboard/v1/reports/events/{id}']['get']['responses'][200]>;
export type ReportInterval = EventReport['interval'];
export type ReportPerformance = EventReport['performances'][number];

type AuditQuery = NonNullable<paths['/dashboard/v1/audit_log']['get']['parameters']['query']>;
export type AuditEntry = Json<paths['/dashboard/v1/audit_log']['get']['responses'][200]>['data'][number];
export type ActorType = AuditEntry['actor']['type'];
/** The audit log's filters, named as the API's query. */
export type AuditFilters = Omit<AuditQuery, 'limit' | 'starting_after'>;

export type AppleWallet = Json<paths['/dashboard/v1/organizer/wallet/apple']['get']['responses'][200]>;
export type AppleWalletChange = Json<NonNullable<paths['/dashboard/v1/organizer/wallet/apple']['put']['requestBody']>>;

export const getAppleWallet = () => answer(dashboard.GET('/dashboard/v1/organizer/wallet/apple'));
export const updateAppleWallet = (change: AppleWalletChange) =>
  answer(dashboard.PUT('/dashboard/v1/organizer/wallet/apple', { body: change }));
export const deleteAppleWallet = () => answer(dashboard.DELETE('/dashboard/v1/organizer/wallet/apple'));

export type GoogleWallet = Json<paths['/dashboard/v1/organizer/wallet/google']['get']['responses'][200]>;
type GoogleWalletChange = Json<NonNullable<paths['/dashboard/v1/organizer/wallet/google']['put']['requestBody']>>;

/** The Google Wallet settings, or null when there are none (the API answers 404). */
export async function getGoogleWallet(): Promise<GoogleWallet | null> {
  try {
    return await answer(dashboard.GET('/dashboard/v1/organizer/wallet/google'));
  } catch (err) {
    if (err instanceof MarqueeApiError && err.status === 404) return null;
    throw err;
  }
}
export const updateGoogleWallet = (change: GoogleWalletChange) =>
  answer(dashboard.PUT('/dashboard/v1/organizer/wallet/google', { body: change }));
/** Answers 204: nothing to read. */
export const deleteGoogleWallet = () => answer(dashboard.DELETE('/dashboard/v1/organizer/wallet/google'));

export const getSettings = () => answer(dashboard.GET('/dashboard/v1/organizer'));

export const updateSettings = (change: SettingsChange) =>
  answer(dashboard.PATCH('/dashboard/v1/organizer', { body: change }));

export const getEventReport = (id: string, interval: ReportInterval) =>
  answer(dashboard.GET('/dashboard/v1/reports/events/{id}', { params: { path: { id }, query: { interval } } }));

export const listAuditLog = (filters: AuditFilters, page: { limit: number; starting_after?: string }) =>
  answer(dashboard.GET('/dashboard/v1/audit_log', { params: { query: { ...filters, ...page } } }));

/** The CSV download of the entries the filters select: a plain GET, which the session cookie authenticates. */
export function auditExportHref(filters: AuditFilters): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(filters))
    if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return `/dashboard/v1/audit_log/export${text === '' ? '' : `?${text}`}`;
}
