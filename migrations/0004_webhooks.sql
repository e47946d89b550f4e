-- Webhooks: an organizer's endpoints, one delivery row per (domain event, endpoint),
-- and a per-attempt log. Deliveries are the worker's queue: due rows are claimed with
-- FOR UPDATE SKIP LOCKED and leased through locked_until, so a dead worker's claim is
-- picked up again once the lease has passed.

CREATE TABLE webhook_endpoints (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id     uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  url              text NOT NULL CHECK (length(url) <= 2048),
  description      text,
  event_types      text[] NOT NULL CHECK (
                     cardinality(event_types) > 0
                     AND event_types <@ ARRAY['order.created', 'order.paid', 'order.refunded', 'ticket.issued',
                                              'ticket.checked_in', 'event.published', 'event.updated']::text[]),
  status           text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled', 'auto_disabled')),
  disabled_reason  text,
  -- The raw `whsec_…` secret: it is needed to sign, so it cannot be stored as a hash.
  secret           text NOT NULL,
  -- When a client last re-enabled the endpoint: the sustained-failure rule only looks
  -- at deliveries created after it, so a re-enabled endpoint gets a fresh window.
  reenabled_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
-- The list (newest first) and the fan-out (organizer's enabled endpoints).
CREATE INDEX webhook_endpoints_organizer_idx ON webhook_endpoints (organizer_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id     uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- The domain event: its id is the webhook-id header, its data the payload.
  event_id         uuid NOT NULL REFERENCES domain_events (id) ON DELETE CASCADE,
  event_type       text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed', 'exhausted')),
  attempt          integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
  response_status  integer,
  response_ms      integer,
  error            text,
  -- When a failed delivery is tried again; null for a fresh one (due at created_at)
  -- and for a finished one.
  next_retry_at    timestamptz,
  -- The lease of the worker that claimed the row; null when nobody holds it.
  locked_until     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
-- The claim query: due rows in due order.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries ((coalesce(next_retry_at, created_at)))
  WHERE status IN ('pending', 'failed');
-- An endpoint's delivery log (newest first) and the sustained-failure check.
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
-- The per-endpoint in-flight cap of the claim query.
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (endpoint_id, locked_until) WHERE locked_until IS NOT NULL;
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
-- Retention purge.
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at);

-- One row per HTTP attempt of a delivery (the delivery row keeps only the latest).
CREATE TABLE webhook_delivery_attempts (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  delivery_id      uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  response_status  integer,
  response_ms      integer,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, attempt);
