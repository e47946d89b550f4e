-- take_inventory() no longer judges whether a sale fits: the fit rule lives in one place,
-- the application's refuseIfShort (docs/inventory.md), applied to the counts this
-- function returns. The function, in ONE round trip:
--   1. locks the performances (FOR NO KEY UPDATE, ascending id) and returns what decides
--      their sellability (kind 'locked');
--   2. in a statement of its own, whose snapshot is taken after the lock was granted,
--      recounts with inventory_remaining() and moves the sold counters by the sale's
--      quantities; it returns the recount (kind 'counted') with `taken`: whether every
--      counter moved. A counter moves unless the move would break its CHECK constraint
--      (a capacity or a type's cap), so the statement never raises for an oversell; it
--      reports it. The caller refuses by rolling back, moved counters included. Nothing
--      changes the counts meanwhile: every writer of sold_count and of holds takes the
--      same performance lock first.
CREATE OR REPLACE FUNCTION take_inventory(
  p_performance_ids         uuid[],
  p_performance_quantities  integer[],
  p_price_performance_ids   uuid[],
  p_price_ticket_type_ids   uuid[],
  p_price_quantities        integer[],
  p_at                      timestamptz
)
RETURNS TABLE (
  kind                      text,
  performance_id            uuid,
  status                    text,
  box_office_sales_enabled  boolean,
  event_status              text,
  performance_remaining     integer,
  ticket_type_id            uuid,
  ticket_type_name          text,
  sort_order                integer,
  type_remaining            integer,
  taken                     boolean
)
LANGUAGE plpgsql VOLATILE
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    SELECT 'locked'::text, p.id, p.status, p.box_office_sales_enabled, e.status,
           NULL::integer, NULL::uuid, NULL::text, NULL::integer, NULL::integer, NULL::boolean
    FROM performances p
    JOIN events e ON e.id = p.event_id
    WHERE p.id = ANY (p_performance_ids)
    ORDER BY p.id
    FOR NO KEY UPDATE OF p;

  RETURN QUERY
    WITH counted AS (
      SELECT * FROM inventory_remaining(p_performance_ids, p_at)
    ),
    moved_performances AS (
      UPDATE performances p SET sold_count = p.sold_count + w.quantity
      FROM unnest(p_performance_ids, p_performance_quantities) AS w(id, quantity)
      WHERE p.id = w.id AND p.sold_count + w.quantity <= p.capacity
      RETURNING p.id
    ),
    moved_prices AS (
      UPDATE prices pr SET sold_count = pr.sold_count + w.quantity
      FROM unnest(p_price_performance_ids, p_price_ticket_type_ids, p_price_quantities)
        AS w(performance_id, ticket_type_id, quantity)
      WHERE pr.performance_id = w.performance_id AND pr.ticket_type_id = w.ticket_type_id
        AND (pr.limited_quantity IS NULL OR pr.sold_count + w.quantity <= pr.limited_quantity)
      RETURNING pr.id
    ),
    moved AS (
      SELECT (SELECT count(*) FROM moved_performances) = cardinality(p_performance_ids)
         AND (SELECT count(*) FROM moved_prices) = cardinality(p_price_ticket_type_ids) AS all_moved
    )
    SELECT 'counted'::text, c.performance_id, NULL::text, NULL::boolean, NULL::text,
           c.performance_remaining, c.ticket_type_id, c.ticket_type_name, c.sort_order, c.type_remaining,
           moved.all_moved
    FROM counted c, moved;
END
$$;
