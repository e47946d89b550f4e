-- An organizer's Apple Wallet pass certificate (docs/tickets.md, "Wallet settings and their
-- keys"): with it every ticket gets a signed .pkpass. One row per organizer; no row: no
-- passes. The private key is stored sealed with WALLET_SECRETS_KEY (src/lib/secret-box.ts)
-- so a copy of the database alone cannot sign passes; the certificates are public.
-- certificate_expires_at is copied out of the certificate so the dashboard can warn
-- without parsing PEM on every read.

CREATE TABLE apple_wallet_settings (
  organizer_id uuid PRIMARY KEY REFERENCES organizers (id) ON DELETE CASCADE,
  pass_type_identifier text NOT NULL CHECK (char_length(pass_type_identifier) BETWEEN 1 AND 255),
  team_identifier text NOT NULL CHECK (char_length(team_identifier) BETWEEN 1 AND 64),
  certificate_pem text NOT NULL,
  sealed_private_key text NOT NULL,
  wwdr_certificate_pem text NOT NULL,
  certificate_expires_at timestamptz NOT NULL,
  -- Colours as Apple takes them: rgb(r, g, b); NULL: the pass's defaults.
  background_color text CHECK (char_length(background_color) <= 32),
  foreground_color text CHECK (char_length(foreground_color) <= 32),
  label_color text CHECK (char_length(label_color) <= 32),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
