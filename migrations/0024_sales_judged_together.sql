-- Several sales of one transaction judged under ONE lock (docs/inventory.md): the
-- inventory step of a batch of sales that commit together. Each sale is judged in turn,
-- in the order given, exactly as if it had called take_inventory_or_refuse()
-- (migrations/0014_sale_commits_at_the_lock.sql) alone in that order; a refused sale
-- takes nothing and does not stop the sales after it.
--
-- 1. The lock, as take_inventory() takes it: every performance of the lines, in ascending
--    id order (so no two writers deadlock), FOR NO KEY UPDATE OF p (not FOR UPDATE: see
--    lockPerformanceRows in src/db/repositories/inventory.ts).
-- 2. The recount, inventory_remaining(), in a later statement, so its snapshot is taken
--    after the lock was granted and sees every sale committed before it.
-- 3. The turns, on counts kept in memory: per performance what is left of it, and per
--    (performance, ticket type) what is left of the type on its own (the recount's
--    type_remaining, which is already at most the performance's). A type's remaining at a
--    sale's turn is the lesser of the two. A sale is accepted when all its performances
--    are box-office sellable (published, event published, box-office sales enabled) and
--    its totals per performance and per type each fit what is left; then its totals are
--    subtracted from both. Since a sale's total of a type is at most its total of the
--    type's performance, comparing the type's total with the type's own count suffices.
-- 4. The counters move once, by the accepted totals, each only within its CHECK
--    constraint; a counter that does not move means the counters and the recount
--    disagree (a bug, not a refusal): the function raises an ordinary error.
--
-- Lines: per line the 1-based index of its sale in the batch, its performance, ticket
-- type and quantity. Rows: one per sale that has lines, in order, with `judged` for a
-- refused sale: take_inventory()'s rows, as take_inventory_or_refuse() puts them in its
-- DETAIL (same keys, same order), for that sale's performances and with the counts as
-- they stood at its turn (`taken` false), so the caller words the refusal as it words a
-- lone sale's.
CREATE FUNCTION take_inventory_for_sales(
  p_line_sales            integer[],
  p_line_performance_ids  uuid[],
  p_line_ticket_type_ids  uuid[],
  p_line_quantities       integer[],
  p_at                    timestamptz
)
RETURNS TABLE (sale integer, accepted boolean, judged jsonb)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_ids       uuid[];  -- the distinct performances of the lines, ascending
  v_locked    jsonb;   -- take_inventory()'s 'locked' rows
  v_sellable  text[];  -- the locked performances that are box-office sellable
  v_counted   jsonb;   -- take_inventory()'s 'counted' rows, without their counts
  -- Keys: a performance id ('<performance>'), or '<performance>/<ticket type>'.
  v_left      jsonb;   -- per key, what is left at the current turn (a type: on its own)
  v_taken     jsonb := '{}';  -- per key, what the accepted sales take
  v_sale      integer;
  v_want      jsonb;   -- per key, the current sale's total
  v_moved     integer;
BEGIN
  SELECT array_agg(DISTINCT u.id ORDER BY u.id) INTO v_ids FROM unnest(p_line_performance_ids) AS u(id);
  IF v_ids IS NULL THEN
    RETURN;
  END IF;

  -- 1. The lock.
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'kind', 'locked', 'performance_id', l.id, 'status', l.status,
           'box_office_sales_enabled', l.box_office_sales_enabled, 'event_status', l.event_status,
           'performance_remaining', NULL, 'ticket_type_id', NULL, 'ticket_type_name', NULL,
           'sort_order', NULL, 'type_remaining', NULL, 'taken', NULL)), '[]'),
         coalesce(array_agg(l.id::text) FILTER (
           WHERE l.status = 'published' AND l.event_status = 'published' AND l.box_office_sales_enabled), '{}')
    INTO v_locked, v_sellable
  FROM (
    SELECT p.id, p.status, p.box_office_sales_enabled, e.status AS event_status
    FROM performances p
    JOIN events e ON e.id = p.event_id
    WHERE p.id = ANY (v_ids)
    ORDER BY p.id
    FOR NO KEY UPDATE OF p
  ) AS l;

  -- 2. The recount (one statement: one snapshot for all of it).
  WITH counted AS (
    SELECT * FROM inventory_remaining(v_ids, p_at)
  )
  SELECT coalesce((SELECT jsonb_object_agg(c.performance_id::text, c.performance_remaining) FROM counted c), '{}')
         || coalesce((SELECT jsonb_object_agg(c.performance_id::text || '/' || c.ticket_type_id::text, c.type_remaining)
                      FROM counted c WHERE c.ticket_type_id IS NOT NULL), '{}'),
         coalesce((SELECT jsonb_agg(jsonb_build_object(
                     'kind', 'counted', 'performance_id', c.performance_id, 'status', NULL,
                     'box_office_sales_enabled', NULL, 'event_status', NULL, 'performance_remaining', NULL,
                     'ticket_type_id', c.ticket_type_id, 'ticket_type_name', c.ticket_type_name,
                     'sort_order', c.sort_order, 'type_remaining', NULL, 'taken', false))
                   FROM counted c), '[]')
    INTO v_left, v_counted;

  -- 3. The turns, in sale order.
  FOR v_sale, v_want IN
    SELECT w.s, jsonb_object_agg(w.key, w.quantity)
    FROM (
      SELECT l.s, l.performance_id::text AS key, sum(l.quantity) AS quantity
      FROM unnest(p_line_sales, p_line_performance_ids, p_line_quantities) AS l(s, performance_id, quantity)
      GROUP BY l.s, l.performance_id
      UNION ALL
      SELECT l.s, l.performance_id::text || '/' || l.ticket_type_id::text, sum(l.quantity)
      FROM unnest(p_line_sales, p_line_performance_ids, p_line_ticket_type_ids, p_line_quantities)
        AS l(s, performance_id, ticket_type_id, quantity)
      GROUP BY l.s, l.performance_id, l.ticket_type_id
    ) AS w
    GROUP BY w.s
    ORDER BY w.s
  LOOP
    sale := v_sale;
    -- A key without a count (no active price, or no such performance) does not fit.
    accepted := NOT EXISTS (
      SELECT 1 FROM jsonb_each_text(v_want) AS w
      WHERE NOT coalesce(w.value::int <= (v_left ->> w.key)::int, false)
         OR (strpos(w.key, '/') = 0 AND NOT w.key = ANY (v_sellable)));
    IF accepted THEN
      judged := NULL;
      SELECT v_left || jsonb_object_agg(w.key, (v_left ->> w.key)::int - w.value::int),
             v_taken || jsonb_object_agg(w.key, coalesce((v_taken ->> w.key)::int, 0) + w.value::int)
        INTO v_left, v_taken
      FROM jsonb_each_text(v_want) AS w;
    ELSE
      SELECT jsonb_agg(r.item ORDER BY r.item ->> 'kind', r.item ->> 'performance_id', (r.item ->> 'sort_order')::int,
                                       r.item ->> 'ticket_type_id')
        INTO judged
      FROM (
        SELECT l.value AS item FROM jsonb_array_elements(v_locked) AS l(value)
        UNION ALL
        SELECT c.value || jsonb_build_object(
                 'performance_remaining', (v_left ->> (c.value ->> 'performance_id'))::int,
                 'type_remaining', CASE WHEN c.value ->> 'ticket_type_id' IS NOT NULL
                                        THEN least((v_left ->> (c.value ->> 'performance_id'))::int,
                                                   (v_left ->> ((c.value ->> 'performance_id') || '/' || (c.value ->> 'ticket_type_id')))::int)
                                   END)
        FROM jsonb_array_elements(v_counted) AS c(value)
      ) AS r
      WHERE v_want ? (r.item ->> 'performance_id');
      judged := coalesce(judged, '[]');
    END IF;
    RETURN NEXT;
  END LOOP;

  -- 4. The counters, by the accepted totals.
  UPDATE performances p SET sold_count = p.sold_count + w.value::int
  FROM jsonb_each_text(v_taken) AS w
  WHERE split_part(w.key, '/', 2) = '' AND p.id = split_part(w.key, '/', 1)::uuid
    AND p.sold_count + w.value::int <= p.capacity;
  GET DIAGNOSTICS v_moved = ROW_COUNT;
  IF v_moved <> (SELECT count(*) FROM jsonb_object_keys(v_taken) AS k(key) WHERE strpos(k.key, '/') = 0) THEN
    RAISE EXCEPTION 'take_inventory_for_sales: a performance counter did not move within what the recount left';
  END IF;

  UPDATE prices pr SET sold_count = pr.sold_count + w.value::int
  FROM jsonb_each_text(v_taken) AS w
  WHERE split_part(w.key, '/', 2) <> ''
    AND pr.performance_id = split_part(w.key, '/', 1)::uuid
    AND pr.ticket_type_id = nullif(split_part(w.key, '/', 2), '')::uuid
    AND (pr.limited_quantity IS NULL OR pr.sold_count + w.value::int <= pr.limited_quantity);
  GET DIAGNOSTICS v_moved = ROW_COUNT;
  IF v_moved <> (SELECT count(*) FROM jsonb_object_keys(v_taken) AS k(key) WHERE strpos(k.key, '/') > 0) THEN
    RAISE EXCEPTION 'take_inventory_for_sales: a price counter did not move within what the recount left';
  END IF;
END
$$;

-- The batch's LAST statement, with the COMMIT behind it in the same message, as a lone
-- sale's take_inventory_or_refuse(): calls take_inventory_for_sales() and, when any sale
-- is refused, raises SQLSTATE MQ002 with every sale's row as JSON in the error's DETAIL.
-- The raise aborts the transaction (the counters and the batch's rows with it), so the
-- COMMIT behind it does not run; the caller answers the refused sales from the rows and
-- writes the accepted ones again without them.
CREATE FUNCTION take_inventory_for_sales_or_refuse(
  p_line_sales            integer[],
  p_line_performance_ids  uuid[],
  p_line_ticket_type_ids  uuid[],
  p_line_quantities       integer[],
  p_at                    timestamptz
)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_rows jsonb;
  v_all_accepted boolean;
BEGIN
  SELECT jsonb_agg(to_jsonb(t) ORDER BY t.sale), bool_and(t.accepted)
    INTO v_rows, v_all_accepted
  FROM take_inventory_for_sales(p_line_sales, p_line_performance_ids, p_line_ticket_type_ids,
                                p_line_quantities, p_at) AS t;
  IF v_all_accepted IS NOT TRUE THEN
    RAISE EXCEPTION 'a sale of the batch does not fit what remains under the lock'
      USING ERRCODE = 'MQ002', DETAIL = coalesce(v_rows, '[]'::jsonb)::text;
  END IF;
END
$$;
