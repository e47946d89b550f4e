/** The public shapes of a performance and its availability (schemas Performance and Availability). */
import type { PerformanceRow } from '../../db/repositories/catalog.ts';
import type { Availability } from '../../domain/inventory/inventory.ts';

export function presentPerformance(row: PerformanceRow) {
  return {
    id: row.id,
    object: 'performance' as const,
    event_id: row.event_id,
    status: row.status,
    title: row.title,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    capacity: row.capacity,
    online_sales_enabled: row.online_sales_enabled,
    box_office_sales_enabled: row.box_office_sales_enabled,
    translations: (row.translations ?? []).map((t) => ({ locale: t.locale, title: t.title ?? null })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentAvailability(availability: Availability) {
  return {
    object: 'availability' as const,
    performance_id: availability.performance_id,
    performance_remaining: availability.performance_remaining,
    ticket_types: availability.ticket_types.map((t) => ({ ticket_type_id: t.ticket_type_id, remaining: t.remaining })),
  };
}
