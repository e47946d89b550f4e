-- Orders: box-office sales, their per-performance transactions, the tickets they issue,
-- payments and refunds, registration questions and answers, the CRM contacts of buyers,
-- and the durable e-mail jobs (receipt, e-tickets) an order enqueues.
-- Every list has an (organizer_id, created_at DESC, id DESC) index, plus one per filter,
-- so keyset pages cost the same on the first page and the thousandth.

CREATE TABLE orders (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id      uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  -- Human-readable, unique per organizer: 8 characters of an unambiguous alphabet.
  order_no          text NOT NULL,
  status            text NOT NULL CHECK (status IN ('unpaid', 'placed', 'fulfilled', 'cancelled')),
  channel           text NOT NULL DEFAULT 'box_office' CHECK (channel IN ('box_office', 'online')),
  -- The tender the order was placed with: cash, pay_later or free.
  tender            text NOT NULL CHECK (tender IN ('cash', 'pay_later', 'free')),
  buyer_first_name  text NOT NULL,
  buyer_last_name   text,
  buyer_email       text NOT NULL,
  buyer_phone       text,
  currency          char(3) NOT NULL,
  total_minor       bigint NOT NULL CHECK (total_minor >= 0),
  etickets_sent_at  timestamptz,
  disputed_at       timestamptz,
  paid_at           timestamptz,
  cancelled_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT orders_order_no_uq UNIQUE (organizer_id, order_no)
);
CREATE INDEX orders_list_idx ON orders (organizer_id, created_at DESC, id DESC);
CREATE INDEX orders_status_idx ON orders (organizer_id, status, created_at DESC, id DESC);
CREATE INDEX orders_email_idx ON orders (organizer_id, lower(buyer_email), created_at DESC, id DESC);

-- One per performance of the order: the per-event totals.
CREATE TABLE order_transactions (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id        uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  order_id            uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  -- "<order_no>-T<n>", unique per organizer.
  transaction_no      text NOT NULL,
  position            integer NOT NULL,
  event_id            uuid NOT NULL REFERENCES events (id),
  performance_id      uuid NOT NULL REFERENCES performances (id),
  delivery_method     text NOT NULL CHECK (delivery_method IN ('eticket')),
  items_total_minor   bigint NOT NULL CHECK (items_total_minor >= 0),
  surcharges_minor    bigint NOT NULL CHECK (surcharges_minor >= 0),
  taxes_minor         bigint NOT NULL CHECK (taxes_minor >= 0),
  service_fees_minor  bigint NOT NULL CHECK (service_fees_minor >= 0),
  total_minor         bigint NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT order_transactions_no_uq UNIQUE (organizer_id, transaction_no),
  CONSTRAINT order_transactions_performance_uq UNIQUE (order_id, performance_id),
  CONSTRAINT order_transactions_total_ck
    CHECK (total_minor = items_total_minor + surcharges_minor + taxes_minor + service_fees_minor)
);
CREATE INDEX order_transactions_order_idx ON order_transactions (order_id, position);
-- The event_id / performance_id filters of GET /v1/orders (semi-join on these).
CREATE INDEX order_transactions_event_idx ON order_transactions (event_id, order_id);
CREATE INDEX order_transactions_performance_idx ON order_transactions (performance_id, order_id);

CREATE TABLE refunds (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  order_id      uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  mode          text NOT NULL CHECK (mode IN ('cash', 'card')),
  status        text NOT NULL CHECK (status IN ('pending', 'refunded', 'failed')),
  amount_minor  bigint NOT NULL CHECK (amount_minor >= 0),
  currency      char(3) NOT NULL,
  ticket_count  integer NOT NULL CHECK (ticket_count > 0),
  settled_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refunds_order_idx ON refunds (order_id, created_at);

CREATE TABLE tickets (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id          uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  order_id              uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  order_transaction_id  uuid NOT NULL REFERENCES order_transactions (id) ON DELETE CASCADE,
  -- Immutable copy of the order's number, so ticket lists need no join.
  order_no              text NOT NULL,
  -- 1..N: the ticket's place in the order (items in request order, quantities expanded).
  position              integer NOT NULL,
  -- "<order_no>-<position, 3 digits>", unique per organizer.
  ticket_no             text NOT NULL,
  -- What a gate scans: 160 random bits, base32. Unique across organizers.
  serial_no             text NOT NULL,
  status                text NOT NULL CHECK (status IN ('purchased', 'checked_in', 'refunded', 'cancelled')),
  event_id              uuid NOT NULL REFERENCES events (id),
  performance_id        uuid NOT NULL REFERENCES performances (id),
  ticket_type_id        uuid NOT NULL REFERENCES ticket_types (id),
  holder_first_name     text NOT NULL,
  holder_last_name      text,
  holder_email          text NOT NULL,
  unit_price_minor      bigint NOT NULL CHECK (unit_price_minor >= 0),
  fee_minor             bigint NOT NULL CHECK (fee_minor >= 0),
  tax_minor             bigint NOT NULL CHECK (tax_minor >= 0),
  total_minor           bigint NOT NULL,
  checked_in_at         timestamptz,
  transferred_at        timestamptz,
  refund_id             uuid REFERENCES refunds (id),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tickets_ticket_no_uq UNIQUE (organizer_id, ticket_no),
  CONSTRAINT tickets_serial_no_uq UNIQUE (serial_no),
  CONSTRAINT tickets_position_uq UNIQUE (order_id, position),
  CONSTRAINT tickets_total_ck CHECK (total_minor = unit_price_minor + fee_minor + tax_minor),
  CONSTRAINT tickets_checked_in_ck CHECK ((status = 'checked_in') = (checked_in_at IS NOT NULL) OR status IN ('refunded', 'cancelled'))
);
CREATE INDEX tickets_list_idx ON tickets (organizer_id, created_at DESC, id DESC);
CREATE INDEX tickets_performance_idx ON tickets (organizer_id, performance_id, created_at DESC, id DESC);
CREATE INDEX tickets_status_idx ON tickets (organizer_id, status, created_at DESC, id DESC);
CREATE INDEX tickets_order_idx ON tickets (order_id, created_at DESC, id DESC);
CREATE INDEX tickets_refund_idx ON tickets (refund_id) WHERE refund_id IS NOT NULL;

-- Money received for an order: cash at creation, or the settlement of a pay-later order.
CREATE TABLE payments (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  order_id      uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  -- Internal vocabulary: cash, card, bankTransfer.
  tender        text NOT NULL CHECK (tender IN ('cash', 'card', 'bankTransfer')),
  amount_minor  bigint NOT NULL CHECK (amount_minor >= 0),
  currency      char(3) NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_order_idx ON payments (order_id, created_at);

CREATE TABLE registration_questions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  event_id      uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  key           text NOT NULL,
  label         text NOT NULL,
  type          text NOT NULL CHECK (type IN ('text', 'number', 'date', 'email', 'phone', 'select', 'multi_select')),
  -- [{key, label}] for select and multi_select, [] otherwise.
  options       jsonb NOT NULL DEFAULT '[]'::jsonb,
  required      boolean NOT NULL DEFAULT false,
  per_attendee  boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT registration_questions_key_uq UNIQUE (event_id, key)
);
CREATE INDEX registration_questions_organizer_idx ON registration_questions (organizer_id, created_at DESC, id DESC);

CREATE TABLE registration_answers (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  order_id      uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  question_id   uuid REFERENCES registration_questions (id) ON DELETE SET NULL,
  -- Order of the answers on order detail.
  position      integer NOT NULL,
  key           text NOT NULL,
  -- Snapshots taken at answer time.
  label         text NOT NULL,
  ticket_id     uuid REFERENCES tickets (id) ON DELETE CASCADE,
  ticket_no     text,
  value         jsonb NOT NULL,
  value_labels  jsonb,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX registration_answers_order_idx ON registration_answers (order_id, position);

-- The CRM: one contact per organizer and e-mail address (case-insensitive).
CREATE TABLE contacts (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id    uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  email           text NOT NULL,
  first_name      text NOT NULL,
  last_name       text,
  phone           text,
  orders_count    integer NOT NULL DEFAULT 1,
  first_order_at  timestamptz NOT NULL,
  last_order_at   timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX contacts_email_uq ON contacts (organizer_id, lower(email));
CREATE INDEX contacts_list_idx ON contacts (organizer_id, created_at DESC, id DESC);

-- Durable e-mail jobs, written in the order's transaction and sent by the worker:
-- claimed with FOR UPDATE SKIP LOCKED, leased (locked_until), retried with backoff.
CREATE TABLE email_jobs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id     uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  order_id         uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  kind             text NOT NULL CHECK (kind IN ('receipt', 'etickets')),
  recipient        text NOT NULL,
  subject          text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'skipped')),
  attempts         integer NOT NULL DEFAULT 0,
  max_attempts     integer NOT NULL DEFAULT 6,
  next_attempt_at  timestamptz NOT NULL,
  locked_until     timestamptz,
  last_error       text,
  message_id       text,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_jobs_due_idx ON email_jobs (next_attempt_at) WHERE status = 'pending';
CREATE INDEX email_jobs_lease_idx ON email_jobs (locked_until) WHERE status = 'sending';
CREATE INDEX email_jobs_list_idx ON email_jobs (organizer_id, created_at DESC, id DESC);
CREATE INDEX email_jobs_order_idx ON email_jobs (order_id);
