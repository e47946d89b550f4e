-- The webhook claim walks due deliveries endpoint by endpoint (claimDueDeliveries in
-- src/db/repositories/webhooks.ts, docs/webhooks.md). It used to walk one global
-- due-order index, skipping rows of endpoints already at their lease cap: with one
-- endpoint at its cap and a long backlog behind it, every claim read that whole backlog
-- (10 ms a claim at 15,000 rows). Per endpoint, a claim reads at most the endpoint's
-- first PER_ENDPOINT_LEASED due rows.
DROP INDEX webhook_deliveries_due_idx;

-- Endpoints with pending or failed deliveries (a skip scan on the leading column), and
-- each one's deliveries in due order.
CREATE INDEX webhook_deliveries_endpoint_due_idx
  ON webhook_deliveries (endpoint_id, (coalesce(next_retry_at, created_at)), id)
  WHERE status IN ('pending', 'failed');

-- A disabled endpoint is sent only its test pings: found here without reading the
-- backlog that waits for its re-enabling.
CREATE INDEX webhook_deliveries_ping_due_idx
  ON webhook_deliveries (endpoint_id, (coalesce(next_retry_at, created_at)), id)
  WHERE status IN ('pending', 'failed') AND event_type = 'test.ping';

-- The lease cap now counts leases among an endpoint's first due rows, so no index needs
-- locked_until any more. With none, taking or handing back a lease (an UPDATE of
-- locked_until alone) is a heap-only (HOT) update: no index entry at all, when the page
-- has room for the new row version, which the fill factor keeps.
DROP INDEX webhook_deliveries_leased_idx;
ALTER TABLE webhook_deliveries SET (fillfactor = 70);
