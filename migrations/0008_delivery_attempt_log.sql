-- The per-attempt log moves onto the delivery row (docs/webhooks.md, "Recording").
--
-- A delivery has at most 7 attempts (the first and 6 retries; a redeliver is a new row),
-- and recording an attempt already rewrites the delivery row. Appending the attempt to
-- that row costs next to nothing, where a row of its own cost an insert into a table,
-- into its two indexes and a foreign-key check: a third of what recording a delivery
-- cost PostgreSQL (bench/README.md). Entries, oldest first:
--   {"attempt": 1, "response_status": 200, "response_ms": 12, "error": null, "at": "<timestamptz>"}
ALTER TABLE webhook_deliveries ADD COLUMN attempt_log jsonb NOT NULL DEFAULT '[]';

UPDATE webhook_deliveries d
SET attempt_log = a.log
FROM (
  SELECT delivery_id,
         jsonb_agg(jsonb_build_object(
           'attempt', attempt, 'response_status', response_status, 'response_ms', response_ms,
           'error', error, 'at', created_at) ORDER BY attempt) AS log
  FROM webhook_delivery_attempts
  GROUP BY delivery_id
) a
WHERE a.delivery_id = d.id;

DROP TABLE webhook_delivery_attempts;
