-- take_inventory() no longer judges whether a sale fits: the fit rule lives in one place,
-- the application's refuseIfShort (docs/inventory.md), applied to the counts this
-- function returns. The function, in ONE round trip:
--   1. locks the performances (FOR NO KEY UPDATE, ascending id) and returns what decides
--      their sellability (kind 'locked');
--   2. recounts with inventory_remaining() in a statement of its own, whose snapshot is
--      taken after the lock was granted, and returns the counts (kind 'counted');
--   3. moves the sold counters by the sale's quantities, and returns whether they moved
--      (one row of kind 'taken'). The caller refuses by rolling back, counters included.
--      A move past a capacity or a type's cap is refused by the CHECK constraints; it is
--      reported as taken = false instead of raised, so the caller still has the counts to
--      word its refusal. Nothing changes the counts between 2 and 3: every writer of
--      sold_count and of holds takes the same performance lock first.
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
DECLARE
  v_taken boolean := true;
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
    SELECT 'counted'::text, c.performance_id, NULL::text, NULL::boolean, NULL::text,
           c.performance_remaining, c.ticket_type_id, c.ticket_type_name, c.sort_order, c.type_remaining,
           NULL::boolean
    FROM inventory_remaining(p_performance_ids, p_at) c;

  BEGIN
    UPDATE performances p SET sold_count = p.sold_count + w.quantity
    FROM unnest(p_performance_ids, p_performance_quantities) AS w(id, quantity)
    WHERE p.id = w.id;
    UPDATE prices pr SET sold_count = pr.sold_count + w.quantity
    FROM unnest(p_price_performance_ids, p_price_ticket_type_ids, p_price_quantities)
      AS w(performance_id, ticket_type_id, quantity)
    WHERE pr.performance_id = w.performance_id AND pr.ticket_type_id = w.ticket_type_id;
  EXCEPTION WHEN check_violation THEN
    v_taken := false;
  END;

  RETURN QUERY
    SELECT 'taken'::text, NULL::uuid, NULL::text, NULL::boolean, NULL::text,
           NULL::integer, NULL::uuid, NULL::text, NULL::integer, NULL::integer, v_taken;
END
$$;
