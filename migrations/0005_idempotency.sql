-- Idempotency keys (spec: Idempotency; docs/idempotency.md). One row per (organizer, key):
-- the first request claims it in_progress under a lease; its response is stored with it
-- (a success in the same transaction as the change itself), and retries replay it.
-- Rows older than 24 hours are purged by the idempotency-purge worker job.

CREATE TABLE idempotency_keys (
  organizer_id      uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  key               text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  -- sha256 (hex) over the API key id, method, path and canonical JSON body of the first request.
  request_hash      text NOT NULL,
  api_key_id        uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  method            text NOT NULL,
  path              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('in_progress', 'completed')),
  -- The lease of the request executing the key: a fencing token renewed by each take-over,
  -- and the instant after which a retry may take the key over (the first process died).
  lease_token       uuid,
  locked_until      timestamptz,
  response_status   integer,
  response_headers  jsonb,
  response_body     text,
  created_at        timestamptz NOT NULL,
  completed_at      timestamptz,
  PRIMARY KEY (organizer_id, key),
  CHECK (status = 'completed' OR (lease_token IS NOT NULL AND locked_until IS NOT NULL)),
  CHECK (status = 'in_progress' OR (response_status IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
