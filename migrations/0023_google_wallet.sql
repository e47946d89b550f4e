-- An organizer's Google Wallet issuer and service-account key (docs/tickets.md, "Wallet
-- settings and their keys"): with them every e-ticket mail carries an "Add to Google
-- Wallet" link, a JWT signed with the key. One row per organizer; no row: no link. The
-- private key is stored sealed with WALLET_SECRETS_KEY (src/lib/secret-box.ts) so a copy
-- of the database alone cannot sign; the issuer id, the account's e-mail and the key's id
-- are not secret and are answered to the dashboard.

CREATE TABLE google_wallet_settings (
  organizer_id uuid PRIMARY KEY REFERENCES organizers (id) ON DELETE CASCADE,
  issuer_id text NOT NULL CHECK (issuer_id ~ '^[0-9]{1,32}$'),
  service_account_email text NOT NULL CHECK (char_length(service_account_email) BETWEEN 1 AND 320),
  sealed_private_key text NOT NULL,
  -- The service-account key's private_key_id: the JWT header's `kid`.
  key_id text NOT NULL CHECK (char_length(key_id) BETWEEN 1 AND 128),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
