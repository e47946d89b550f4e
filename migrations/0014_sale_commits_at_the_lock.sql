-- A sale's inventory step and its COMMIT in one message (docs/inventory.md, "The lock is
-- held inside the database"): the performance lock is released by the COMMIT that
-- follows take_inventory_or_refuse() in the same message, never across a round trip to
-- the API.
--
-- 1. take_inventory() moves a counter only within what its recount leaves: a performance's
--    by at most performance_remaining, a price's by at most type_remaining (besides the
--    CHECK constraints). So `taken` (every counter moved) holds exactly when the sale fits
--    the recount: the comparison refuseIfShort makes (src/domain/inventory/inventory.ts),
--    which still words every refusal from the returned counts.
-- 2. take_inventory_or_refuse() calls it and raises SQLSTATE MQ001 when a counter did not
--    move or a locked performance is no longer box-office sellable (published, its event
--    published, box-office sales enabled), with take_inventory()'s rows as JSON in the
--    error's DETAIL. The raise aborts the transaction, so the COMMIT sent behind it does
--    not run, and the caller judges the rows as it judges take_inventory()'s.
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
        AND w.quantity <= (SELECT c.performance_remaining FROM counted c WHERE c.performance_id = w.id LIMIT 1)
      RETURNING p.id
    ),
    moved_prices AS (
      UPDATE prices pr SET sold_count = pr.sold_count + w.quantity
      FROM unnest(p_price_performance_ids, p_price_ticket_type_ids, p_price_quantities)
        AS w(performance_id, ticket_type_id, quantity)
      WHERE pr.performance_id = w.performance_id AND pr.ticket_type_id = w.ticket_type_id
        AND (pr.limited_quantity IS NULL OR pr.sold_count + w.quantity <= pr.limited_quantity)
        AND w.quantity <= (SELECT c.type_remaining FROM counted c
                           WHERE c.performance_id = w.performance_id AND c.ticket_type_id = w.ticket_type_id)
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

CREATE FUNCTION take_inventory_or_refuse(
  p_performance_ids         uuid[],
  p_performance_quantities  integer[],
  p_price_performance_ids   uuid[],
  p_price_ticket_type_ids   uuid[],
  p_price_quantities        integer[],
  p_at                      timestamptz
)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_rows jsonb;
  v_accepted boolean;
BEGIN
  SELECT jsonb_agg(to_jsonb(t) ORDER BY t.kind, t.performance_id, t.sort_order, t.ticket_type_id),
         bool_and(CASE WHEN t.kind = 'locked'
                       THEN t.status = 'published' AND t.event_status = 'published' AND t.box_office_sales_enabled
                       ELSE t.taken END)
    INTO v_rows, v_accepted
  FROM take_inventory(p_performance_ids, p_performance_quantities, p_price_performance_ids,
                      p_price_ticket_type_ids, p_price_quantities, p_at) AS t;
  IF v_accepted IS NOT TRUE THEN
    RAISE EXCEPTION 'the sale does not fit what remains under the lock'
      USING ERRCODE = 'MQ001', DETAIL = coalesce(v_rows, '[]'::jsonb)::text;
  END IF;
END
$$;
