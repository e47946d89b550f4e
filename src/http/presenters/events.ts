/** The public shapes of an event and its detail (schemas Event and EventDetail). */
import type { EventDetailRow, EventRow } from '../../db/repositories/catalog.ts';
import { resolveTranslation } from '../../domain/catalog/events.ts';

export function presentEvent(row: EventRow) {
  const translations = row.translations ?? [];
  const resolved = resolveTranslation(translations);
  return {
    id: row.id,
    object: 'event' as const,
    title: resolved?.title ?? row.title,
    description: resolved?.description ?? null,
    admission_type: row.admission_type,
    image_url: row.image_url,
    contact_email: row.contact_email,
    timezone: row.timezone,
    venue_id: row.venue_id,
    category_id: row.category_id,
    is_archived: row.is_archived,
    translations: translations.map((t) => ({
      locale: t.locale,
      title: t.title ?? row.title,
      description: t.description ?? null,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentEventDetail(row: EventDetailRow) {
  const { ticket_types: ticketTypes, ...event } = row;
  return {
    ...presentEvent(event),
    ticket_types: ticketTypes.map((tt) => ({
      id: tt.id,
      object: 'ticket_type' as const,
      name: tt.name,
      description: tt.description,
      sort_order: tt.sort_order,
      translations: (tt.translations ?? []).map((t) => ({
        locale: t.locale,
        name: t.title ?? tt.name,
        description: t.description ?? null,
      })),
      updated_at: tt.updated_at,
      prices: tt.prices.map((p) => ({
        performance_id: p.performance_id,
        seat_category_key: p.seat_category_key,
        price_minor: Number(p.price_minor),
        limited_quantity: p.limited_quantity,
        is_active: p.is_active,
      })),
    })),
  };
}
