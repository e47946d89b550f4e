-- Incremental sync of orders and tickets (docs/sync.md): lists filtered by created_at or
-- updated_at, or ordered by updated_at, return only rows stamped before a horizon that no
-- transaction still in flight can write below, so a poller that moves its cursor forward
-- misses no change. Three parts:
--
--   sync_horizon_floor  a sequence (not transactional: every session sees a setval at
--                       once) holding, in milliseconds since 1970, the highest horizon a
--                       list has computed so far.
--   sync_register()     a BEFORE INSERT OR UPDATE trigger on orders and tickets. It
--                       (1) registers the transaction's first stamp: a shared advisory lock
--                       whose key carries the stamp, held by the writing transaction until
--                       it ends, visible in pg_locks to every session from the moment it is
--                       taken, and released only after the commit is visible (a later row
--                       of the transaction stamped below it is raised to it); then (2)
--                       reads the floor and raises a stamp below it up to it. Stamps keep
--                       millisecond precision, the precision of every response.
--   sync_horizon(now)   raises the floor to `now` (the caller's clock), then answers the
--                       least of `now` and the stamps registered by open transactions.
--                       Callers run it as a statement of its own, before the list query,
--                       so the list's snapshot is taken after the registrations were read.
--
-- Why no row can appear later below a horizon H that a list used: a transaction whose
-- registration the horizon read saw has stamps >= its registered key >= H; one that
-- registers later reads the floor after the horizon raised it, so its stamps are >= H;
-- one that had ended before the read is visible to the list's snapshot.
CREATE SEQUENCE sync_horizon_floor AS bigint MINVALUE 0 START WITH 0;

-- The advisory lock key of a stamp: 23553 (an arbitrary constant naming these locks) in
-- the top 16 bits of the 64-bit key, the stamp's milliseconds since 1970 in the low 48
-- (enough for every instant up to 9999-12-31). pg_locks shows a 64-bit key as classid
-- (high 32 bits) and objid (low 32 bits) with objsubid 1.
CREATE FUNCTION sync_stamp_key(p_at timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT (23553::bigint << 48) | greatest(0, (extract(epoch FROM p_at) * 1000)::bigint)
$$;

CREATE FUNCTION sync_register() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_registered text := current_setting('marquee.sync_registered', true);
  v_stamp timestamptz;
  v_floor timestamptz;
BEGIN
  NEW.updated_at := date_trunc('milliseconds', NEW.updated_at);
  v_stamp := NEW.updated_at;
  IF TG_OP = 'INSERT' THEN
    NEW.created_at := date_trunc('milliseconds', NEW.created_at);
    v_stamp := least(NEW.created_at, NEW.updated_at);
  END IF;
  -- One registration per transaction (a lock per distinct stamp would exhaust the lock
  -- table on a bulk update): the first row's stamp. A later row of the same transaction
  -- stamped below it is raised to it, so the registration covers every row.
  IF v_registered IS NULL OR v_registered = '' THEN
    PERFORM pg_advisory_xact_lock_shared(sync_stamp_key(v_stamp));
    PERFORM set_config('marquee.sync_registered', v_stamp::text, true);
  ELSE
    v_floor := v_registered::timestamptz;
    IF NEW.updated_at < v_floor THEN NEW.updated_at := v_floor; END IF;
    IF TG_OP = 'INSERT' AND NEW.created_at < v_floor THEN NEW.created_at := v_floor; END IF;
  END IF;
  -- After the registration, never before it.
  SELECT 'epoch'::timestamptz + last_value * interval '1 millisecond' INTO v_floor FROM sync_horizon_floor;
  IF NEW.updated_at < v_floor THEN
    NEW.updated_at := v_floor;
  END IF;
  IF TG_OP = 'INSERT' AND NEW.created_at < v_floor THEN
    NEW.created_at := v_floor;
  END IF;
  RETURN NEW;
END;
$$;

CREATE FUNCTION sync_horizon(p_now timestamptz) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now_ms bigint := greatest(0, (extract(epoch FROM date_trunc('milliseconds', p_now)) * 1000)::bigint);
  v_oldest_ms bigint;
BEGIN
  -- Horizon reads take turns (a two-key lock: not one of the stamp keys), so the floor
  -- only ever rises; the lock ends with the caller's statement.
  PERFORM pg_advisory_xact_lock(23553, 1);
  IF (SELECT last_value FROM sync_horizon_floor) < v_now_ms THEN
    PERFORM setval('sync_horizon_floor', v_now_ms);
  END IF;
  SELECT min(((l.classid::bigint << 32) | l.objid::bigint) & 281474976710655) INTO v_oldest_ms
  FROM pg_locks l
  WHERE l.locktype = 'advisory'
    AND l.objsubid = 1
    AND l.granted
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND (l.classid::bigint >> 16) = 23553;
  RETURN 'epoch'::timestamptz + least(v_now_ms, coalesce(v_oldest_ms, v_now_ms)) * interval '1 millisecond';
END;
$$;

-- Stamps written before this migration by SQL defaults may carry microseconds; the
-- responses show milliseconds, and a cursor passed back must compare equal.
UPDATE orders SET updated_at = date_trunc('milliseconds', updated_at) WHERE updated_at <> date_trunc('milliseconds', updated_at);
UPDATE tickets SET updated_at = date_trunc('milliseconds', updated_at) WHERE updated_at <> date_trunc('milliseconds', updated_at);

CREATE TRIGGER orders_sync_register BEFORE INSERT OR UPDATE ON orders
  FOR EACH ROW EXECUTE FUNCTION sync_register();
CREATE TRIGGER tickets_sync_register BEFORE INSERT OR UPDATE ON tickets
  FOR EACH ROW EXECUTE FUNCTION sync_register();

-- The sync order (updated_at, id) per organizer; the created_at filters use the lists'
-- existing (organizer_id, created_at DESC, id DESC) indexes.
CREATE INDEX orders_updated_idx ON orders (organizer_id, updated_at, id);
CREATE INDEX tickets_updated_idx ON tickets (organizer_id, updated_at, id);
