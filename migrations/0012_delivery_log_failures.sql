-- An endpoint's failed and exhausted deliveries, newest first: what the recover operation
-- re-sends (POST /v1/webhook_endpoints/{id}/recover) and what the delivery log filtered by
-- `status=failed` or `status=exhausted` shows (docs/webhooks.md, "The delivery log").
-- Without it both read the endpoint's whole log (up to 30 days of deliveries) to find a
-- few failures. Partial, so a delivery that succeeds (the common case) never enters it:
-- recording a success costs no more than before, and taking or handing back a lease
-- (locked_until only) stays a heap-only update.
CREATE INDEX webhook_deliveries_endpoint_failures_idx
  ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)
  WHERE status IN ('failed', 'exhausted');
