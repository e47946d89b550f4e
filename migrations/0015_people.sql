-- People of an organizer (docs/dashboard.md): users who sign in to the dashboard, their
-- memberships (one role per organizer), their sessions, and the one-time links that
-- invite, reset a password or set up the first owner. Secrets are stored hashed: session
-- ids, link tokens and recovery codes as SHA-256, passwords as argon2id.

CREATE TABLE users (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email                text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  name                 text NOT NULL CHECK (length(name) <= 200),
  password_hash        text NOT NULL,
  -- TOTP second factor: the confirmed secret, the last time step accepted (a code is
  -- good once), and a secret being enrolled that no code has confirmed yet.
  totp_secret          text,
  totp_last_step       bigint,
  totp_pending_secret  text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_uq ON users (lower(email));

CREATE TABLE user_recovery_codes (
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash  bytea NOT NULL,
  used_at    timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A membership is invited (an e-mail address and a role, no user yet) until its
-- invitation is accepted, then active. An organizer keeps at least one active owner:
-- role changes and removals lock the organizer's owner rows and count them.
CREATE TABLE memberships (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  user_id       uuid REFERENCES users (id) ON DELETE CASCADE,
  email         text NOT NULL,
  role          text NOT NULL CHECK (role IN ('owner', 'manager', 'box_office', 'door', 'viewer')),
  status        text NOT NULL CHECK (status IN ('invited', 'active')),
  invited_by    uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (status = 'invited' OR user_id IS NOT NULL)
);
CREATE UNIQUE INDEX memberships_user_uq ON memberships (organizer_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX memberships_invited_uq ON memberships (organizer_id, lower(email)) WHERE status = 'invited';
CREATE INDEX memberships_user_idx ON memberships (user_id);
CREATE INDEX memberships_list_idx ON memberships (organizer_id, created_at, id);

-- A signed-in browser. The cookie holds a random id; only its SHA-256 is here. A session
-- works for the organizer it is switched to, while the user is an active member of it.
CREATE TABLE user_sessions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash    bytea NOT NULL UNIQUE,
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  csrf_token    text NOT NULL,
  user_agent    text,
  ip            text,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);
CREATE INDEX user_sessions_expiry_idx ON user_sessions (expires_at);

-- Single-use links sent by e-mail or printed at first start: an invitation (to a
-- membership), a password reset (of a user), the first owner's set-up (of an organizer).
CREATE TABLE one_time_links (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash     bytea NOT NULL UNIQUE,
  purpose        text NOT NULL CHECK (purpose IN ('invitation', 'password_reset', 'owner_setup')),
  user_id        uuid REFERENCES users (id) ON DELETE CASCADE,
  membership_id  uuid REFERENCES memberships (id) ON DELETE CASCADE,
  organizer_id   uuid REFERENCES organizers (id) ON DELETE CASCADE,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (
    (purpose = 'invitation' AND membership_id IS NOT NULL)
    OR (purpose = 'password_reset' AND user_id IS NOT NULL)
    OR (purpose = 'owner_setup' AND organizer_id IS NOT NULL)
  )
);
CREATE INDEX one_time_links_membership_idx ON one_time_links (membership_id) WHERE membership_id IS NOT NULL;
CREATE INDEX one_time_links_user_idx ON one_time_links (user_id) WHERE user_id IS NOT NULL;

-- Account e-mails (invitations, password resets) go through the same durable jobs as an
-- order's. They have no order, and a reset has no organizer. The link they carry exists
-- nowhere else in clear: it is kept in the job until the mail is sent or fails, then erased.
ALTER TABLE email_jobs ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE email_jobs ALTER COLUMN organizer_id DROP NOT NULL;
ALTER TABLE email_jobs DROP CONSTRAINT email_jobs_kind_check;
ALTER TABLE email_jobs ADD CONSTRAINT email_jobs_kind_check
  CHECK (kind IN ('receipt', 'etickets', 'invitation', 'password_reset'));
ALTER TABLE email_jobs ADD COLUMN link text;
ALTER TABLE email_jobs ADD COLUMN account_data jsonb;
ALTER TABLE email_jobs ADD CONSTRAINT email_jobs_order_check
  CHECK ((kind IN ('receipt', 'etickets')) = (order_id IS NOT NULL));

-- An Idempotency-Key belongs to the API key or, on the dashboard API, the user that sent it.
ALTER TABLE idempotency_keys ALTER COLUMN api_key_id DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_owner_check
  CHECK ((api_key_id IS NULL) <> (user_id IS NULL));
