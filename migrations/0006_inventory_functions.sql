-- Inventory in the database (docs/inventory.md):
--
-- inventory_remaining() is THE counting query: what is left per performance and per
-- (performance, ticket type). The availability endpoint and hold creation run it as it is;
-- take_inventory() runs it under the performance lock. STABLE, so it is inlined into the
-- calling query and reads that query's snapshot.
--
-- take_inventory() is a sale's inventory step in ONE round trip: lock the performances
-- (FOR NO KEY UPDATE, ascending id), then, in a second statement whose snapshot is taken
-- after the lock was granted (a VOLATILE function takes a fresh snapshot per statement in
-- READ COMMITTED), recount and move the sold counters only if every line fits. The
-- caller decides on the returned numbers and rolls back to refuse; the CHECK constraints
-- on the counters stay the last line.

CREATE FUNCTION inventory_remaining(p_performance_ids uuid[], p_at timestamptz)
RETURNS TABLE (
  performance_id         uuid,
  performance_remaining  integer,
  ticket_type_id         uuid,
  ticket_type_name       text,
  sort_order             integer,
  type_remaining         integer
)
LANGUAGE sql STABLE
AS $$
  WITH active_holds AS (
    SELECT h.performance_id, h.ticket_type_id, sum(h.quantity)::int AS quantity
    FROM holds h
    WHERE h.performance_id = ANY (p_performance_ids)
      AND h.released_at IS NULL
      AND (h.expires_at IS NULL OR h.expires_at > p_at)
    GROUP BY h.performance_id, h.ticket_type_id
  ),
  perf AS (
    SELECT p.id,
           greatest(p.capacity - p.sold_count
                    - coalesce((SELECT sum(ah.quantity) FROM active_holds ah WHERE ah.performance_id = p.id), 0), 0)::int AS remaining
    FROM performances p
    WHERE p.id = ANY (p_performance_ids)
  )
  SELECT perf.id,
         perf.remaining,
         tt.id,
         tt.name,
         tt.sort_order,
         CASE WHEN pr.id IS NULL THEN NULL
              WHEN pr.limited_quantity IS NULL THEN perf.remaining
              ELSE greatest(least(perf.remaining,
                     pr.limited_quantity - pr.sold_count
                     - coalesce((SELECT ah.quantity FROM active_holds ah
                                 WHERE ah.performance_id = perf.id AND ah.ticket_type_id = pr.ticket_type_id), 0)), 0)
         END::int
  FROM perf
  LEFT JOIN prices pr ON pr.performance_id = perf.id AND pr.is_active
  LEFT JOIN ticket_types tt ON tt.id = pr.ticket_type_id
$$;

-- Lines: the distinct performances with their total quantity, and the (performance,
-- ticket type) pairs with theirs. Rows: kind 'locked' (one per locked performance: what
-- decides its sellability, the performance's columns as of its lock), then kind 'counted'
-- (the recount, as the availability endpoint shows it, before the move) with `taken`:
-- whether the counters moved.
CREATE FUNCTION take_inventory(
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
  -- 1. The lock, in ascending id order (so two sales never deadlock).
  RETURN QUERY
    SELECT 'locked'::text, p.id, p.status, p.box_office_sales_enabled, e.status,
           NULL::integer, NULL::uuid, NULL::text, NULL::integer, NULL::integer, NULL::boolean
    FROM performances p
    JOIN events e ON e.id = p.event_id
    WHERE p.id = ANY (p_performance_ids)
    ORDER BY p.id
    FOR NO KEY UPDATE OF p;

  -- 2. Recount and take: a new statement, so it sees every sale committed before the lock
  --    was granted; its sub-statements share one snapshot, so the counts returned are the
  --    ones the decision was made on.
  RETURN QUERY
    WITH counted AS (
      SELECT * FROM inventory_remaining(p_performance_ids, p_at)
    ),
    wanted_performances AS (
      SELECT w.id, w.quantity FROM unnest(p_performance_ids, p_performance_quantities) AS w(id, quantity)
    ),
    wanted_prices AS (
      SELECT w.performance_id, w.ticket_type_id, w.quantity
      FROM unnest(p_price_performance_ids, p_price_ticket_type_ids, p_price_quantities) AS w(performance_id, ticket_type_id, quantity)
    ),
    fits AS (
      SELECT NOT EXISTS (
               SELECT 1 FROM wanted_prices w
               WHERE NOT EXISTS (SELECT 1 FROM counted c
                                 WHERE c.performance_id = w.performance_id AND c.ticket_type_id = w.ticket_type_id
                                   AND c.type_remaining >= w.quantity))
         AND NOT EXISTS (
               SELECT 1 FROM wanted_performances w
               WHERE NOT EXISTS (SELECT 1 FROM counted c WHERE c.performance_id = w.id AND c.performance_remaining >= w.quantity))
             AS ok
    ),
    moved_performances AS (
      UPDATE performances p SET sold_count = p.sold_count + w.quantity
      FROM wanted_performances w, fits
      WHERE fits.ok AND p.id = w.id
    ),
    moved_prices AS (
      UPDATE prices pr SET sold_count = pr.sold_count + w.quantity
      FROM wanted_prices w, fits
      WHERE fits.ok AND pr.performance_id = w.performance_id AND pr.ticket_type_id = w.ticket_type_id
    )
    SELECT 'counted'::text, c.performance_id, NULL::text, NULL::boolean, NULL::text,
           c.performance_remaining, c.ticket_type_id, c.ticket_type_name, c.sort_order, c.type_remaining, fits.ok
    FROM counted c, fits;
END
$$;
