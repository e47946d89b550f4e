/** The public shape of a hold (schema Hold). */
import type { HoldRow } from '../../db/repositories/catalog.ts';

export function presentHold(row: HoldRow) {
  return {
    id: row.id,
    object: 'hold' as const,
    performance_id: row.performance_id,
    ticket_type_id: row.ticket_type_id,
    kind: row.kind,
    quantity: row.quantity,
    expires_at: row.expires_at,
    released_at: row.released_at,
    created_at: row.created_at,
  };
}
