-- Delivery workers in other processes hear of new deliveries at once (LISTEN/NOTIFY,
-- docs/webhooks.md): every statement that inserts deliveries notifies the channel
-- `marquee_deliveries_queued` (DELIVERIES_QUEUED_CHANNEL in src/db/repositories/webhooks.ts).
-- A trigger, so every way a delivery is queued (the fan-out of an event, a redeliver, an
-- admin test ping) notifies, whatever code inserts it. PostgreSQL delivers the
-- notification when the transaction commits, never if it rolls back, and sends one per
-- transaction however many statements raised it.
CREATE FUNCTION notify_deliveries_queued() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- A statement trigger fires for an INSERT of no rows too (a fan-out nobody subscribed to).
  IF EXISTS (SELECT 1 FROM queued) THEN
    PERFORM pg_notify('marquee_deliveries_queued', '');
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER webhook_deliveries_notify_queued
  AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS queued
  FOR EACH STATEMENT EXECUTE FUNCTION notify_deliveries_queued();
