/**
 * The current organizer of a session body: id, name, currency and time zone. The console
 * reads them from the body's `organizer` (what GET /v1/api_key answers an integration;
 * GET /dashboard/v1/session is its dashboard counterpart, docs/dashboard.md). A service
 * whose session body does not carry it yet gets the membership's name, the browser's time
 * zone and EUR: prices then show in the wrong currency, so the body must carry it.
 */
import type { SessionBody } from './dashboard.ts';
import type { Organizer } from './session.ts';

export function organizerOf(body: SessionBody): Organizer {
  const described = (body as SessionBody & { organizer?: Partial<Organizer> }).organizer;
  const membership = body.memberships.find((m) => m.organizer_id === body.organizer_id);
  return {
    id: body.organizer_id,
    name: described?.name ?? membership?.organizer_name ?? '',
    currency: described?.currency ?? 'EUR',
    timezone: described?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}
