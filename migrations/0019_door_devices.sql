-- Door devices (docs/door.md): a device is provisioned by a one-time token shown as a QR
-- code, claims a device key (an API key with only the `check_in` scope, limited to the
-- device's performances), and uploads the scans it made offline.

ALTER TABLE api_keys DROP CONSTRAINT api_keys_scopes_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scopes_check CHECK (
  cardinality(scopes) > 0
  AND (scopes <@ ARRAY['read', 'write']::text[] OR scopes = ARRAY['check_in']::text[])
);

CREATE TABLE door_devices (
  id                       uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id             uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  name                     text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- The performances the device may admit; each of the organizer (checked on write).
  performance_ids          uuid[] NOT NULL CHECK (cardinality(performance_ids) BETWEEN 1 AND 50),
  -- Offline, scans wait for the network instead of being decided from the local copy.
  online_only              boolean NOT NULL DEFAULT false,
  -- A SHA-256 of the one-time provisioning token; cleared once claimed.
  provisioning_token_hash  bytea UNIQUE,
  provisioning_expires_at  timestamptz,
  -- The device key, once claimed.
  api_key_id               uuid UNIQUE REFERENCES api_keys (id) ON DELETE SET NULL,
  claimed_at               timestamptz,
  revoked_at               timestamptz,
  -- The last time the device read its local copy's changes (GET /v1/door_tickets).
  last_synced_at           timestamptz,
  created_by               uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX door_devices_organizer_idx ON door_devices (organizer_id, created_at DESC, id DESC);

-- Which device admitted a ticket (online or by upload); null for an integration or a person.
ALTER TABLE tickets ADD COLUMN checked_in_device_id uuid REFERENCES door_devices (id) ON DELETE SET NULL;
CREATE INDEX tickets_checked_in_idx ON tickets (performance_id, checked_in_at) WHERE status = 'checked_in';

-- Every scan uploaded with POST /v1/check_ins, with the outcome it was given. The unique
-- key makes a re-upload of a scan answer its first outcome; the already_checked_in rows
-- are the double entries.
CREATE TABLE check_in_scans (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id        uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  api_key_id          uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  device_id           uuid REFERENCES door_devices (id) ON DELETE SET NULL,
  device_scan_id      text NOT NULL CHECK (char_length(device_scan_id) BETWEEN 1 AND 100),
  ticket_id           uuid NOT NULL,
  performance_id      uuid,
  scanned_at          timestamptz NOT NULL,
  outcome             text NOT NULL CHECK (outcome IN ('admitted', 'already_checked_in', 'not_admittable')),
  reason              text CHECK (reason IN ('unknown', 'wrong_performance', 'refunded', 'cancelled', 'unpaid')),
  -- For already_checked_in: the admission that came first.
  admitted_at         timestamptz,
  admitted_device_id  uuid REFERENCES door_devices (id) ON DELETE SET NULL,
  received_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (api_key_id, device_scan_id)
);
CREATE INDEX check_in_scans_organizer_idx ON check_in_scans (organizer_id, received_at DESC, id DESC);
CREATE INDEX check_in_scans_device_idx ON check_in_scans (device_id, received_at);
CREATE INDEX check_in_scans_double_idx ON check_in_scans (performance_id, received_at) WHERE outcome = 'already_checked_in';
