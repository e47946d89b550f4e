-- Catalog: venues, categories, events, performances, ticket types, their
-- per-performance prices, and holds. Inventory counters live on the rows that are
-- locked when selling (performances and prices), so a sale is one conditional update
-- per row and the CHECK constraints are the last line against overselling.

CREATE TABLE venues (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  name          text NOT NULL,
  -- The organizer's single shared "Online" venue (venue: "online" in POST /v1/events).
  is_online     boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX venues_name_uq ON venues (organizer_id, lower(name)) WHERE NOT is_online;
CREATE UNIQUE INDEX venues_online_uq ON venues (organizer_id) WHERE is_online;

CREATE TABLE categories (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  name          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX categories_name_uq ON categories (organizer_id, lower(name));

CREATE TABLE events (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id    uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  venue_id        uuid NOT NULL REFERENCES venues (id),
  category_id     uuid NOT NULL REFERENCES categories (id),
  -- The resolved title (en translation first, else the first); kept in step with
  -- translations by the catalog code, and the target of the duplicate-title rule.
  title           text NOT NULL,
  default_locale  text NOT NULL DEFAULT 'en',
  -- [{locale, title, description}], in the order they were added.
  translations    jsonb NOT NULL DEFAULT '[]'::jsonb,
  admission_type  text NOT NULL DEFAULT 'general_admission'
                  CHECK (admission_type IN ('general_admission', 'reserved_seating')),
  image_url       text,
  contact_email   text,
  timezone        text NOT NULL,
  status          text NOT NULL CHECK (status IN ('draft', 'published')),
  published_at    timestamptz,
  is_archived     boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
-- Duplicate titles within an organizer are refused by the database, case-insensitively.
CREATE UNIQUE INDEX events_title_uq ON events (organizer_id, lower(title));
CREATE INDEX events_list_idx ON events (organizer_id, created_at DESC, id DESC);

CREATE TABLE performances (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id              uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  event_id                  uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  title                     text,
  translations              jsonb NOT NULL DEFAULT '[]'::jsonb,
  starts_at                 timestamptz NOT NULL,
  ends_at                   timestamptz NOT NULL,
  capacity                  integer NOT NULL CHECK (capacity BETWEEN 1 AND 1000000),
  -- Tickets currently holding a seat (purchased or checked in).
  sold_count                integer NOT NULL DEFAULT 0,
  online_sales_enabled      boolean NOT NULL DEFAULT true,
  box_office_sales_enabled  boolean NOT NULL DEFAULT true,
  status                    text NOT NULL CHECK (status IN ('draft', 'published', 'cancelled')),
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at >= starts_at),
  CONSTRAINT performances_not_oversold CHECK (sold_count BETWEEN 0 AND capacity)
);
CREATE INDEX performances_event_idx ON performances (event_id, starts_at, id);
CREATE INDEX performances_organizer_idx ON performances (organizer_id);

CREATE TABLE ticket_types (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  event_id      uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  name          text NOT NULL,
  description   text,
  translations  jsonb NOT NULL DEFAULT '[]'::jsonb,
  sort_order    integer NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticket_types_event_idx ON ticket_types (event_id, sort_order, id);

-- A ticket type's price and sale cap on one performance.
CREATE TABLE prices (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id       uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  ticket_type_id     uuid NOT NULL REFERENCES ticket_types (id) ON DELETE CASCADE,
  performance_id     uuid NOT NULL REFERENCES performances (id) ON DELETE CASCADE,
  seat_category_key  text NOT NULL DEFAULT 'general',
  price_minor        bigint NOT NULL CHECK (price_minor BETWEEN 0 AND 100000000),
  limited_quantity   integer CHECK (limited_quantity >= 0),
  -- Tickets of this type currently holding a seat on this performance.
  sold_count         integer NOT NULL DEFAULT 0,
  is_active          boolean NOT NULL DEFAULT true,
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (ticket_type_id, performance_id),
  CONSTRAINT prices_not_oversold CHECK (sold_count >= 0 AND (limited_quantity IS NULL OR sold_count <= limited_quantity))
);
CREATE INDEX prices_performance_idx ON prices (performance_id);

-- Cart holds (expire) and hold allocations (no expiry) reduce availability while
-- active: not released and not past expires_at.
CREATE TABLE holds (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id    uuid NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  performance_id  uuid NOT NULL REFERENCES performances (id) ON DELETE CASCADE,
  ticket_type_id  uuid REFERENCES ticket_types (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('cart', 'allocation')),
  quantity        integer NOT NULL CHECK (quantity BETWEEN 1 AND 1000000),
  expires_at      timestamptz,
  released_at     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (kind = 'cart' AND expires_at IS NOT NULL OR kind = 'allocation')
);
CREATE INDEX holds_active_idx ON holds (performance_id) WHERE released_at IS NULL;
