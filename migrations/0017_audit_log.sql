-- The organizer's audit log (docs/dashboard.md, "Audit log"): one row per write of the
-- dashboard, of an API key or of the operator, who did it, to what, and which fields of
-- the target changed. Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, except
-- the retention purge's DELETE of rows older than the cutoff it announces for its own
-- transaction (set_config('marquee.audit_purge_before', …, true)).

CREATE TABLE audit_log (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organizer_id  uuid NOT NULL REFERENCES organizers (id),
  occurred_at   timestamptz NOT NULL,
  actor_type    text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'operator')),
  -- The user or API key; null for the operator. No foreign key: the entry outlives them.
  actor_id      uuid,
  -- Who it was when it happened: the user's e-mail, the key's name and preview, `operator`.
  actor_label   text NOT NULL,
  -- The operationId of the route.
  action        text NOT NULL,
  target_type   text NOT NULL,
  target_id     uuid,
  -- {field: {before, after}}, only the fields that changed; {} when nothing to show.
  changes       jsonb NOT NULL DEFAULT '{}',
  ip            text,
  user_agent    text,
  request_id    text
);
-- Newest first per organizer, and the time range filters.
CREATE INDEX audit_log_list_idx ON audit_log (organizer_id, occurred_at DESC, id DESC);
-- The target and actor filters ("everything that happened to this order", "by this key").
CREATE INDEX audit_log_target_idx ON audit_log (organizer_id, target_id, occurred_at DESC) WHERE target_id IS NOT NULL;
CREATE INDEX audit_log_actor_idx ON audit_log (organizer_id, actor_id, occurred_at DESC) WHERE actor_id IS NOT NULL;
-- The retention purge, across organizers.
CREATE INDEX audit_log_purge_idx ON audit_log (occurred_at);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_cutoff text := current_setting('marquee.audit_purge_before', true);
BEGIN
  IF TG_OP = 'DELETE' AND v_cutoff IS NOT NULL AND v_cutoff <> '' THEN
    IF OLD.occurred_at < v_cutoff::timestamptz THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % is refused', TG_OP
    USING HINT = 'Entries are only ever added; the retention purge removes the expired ones.';
END;
$$;

CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- The audited state of a target: its row as JSON (the organizer's id included), or null
-- for a type without one. Timestamps in UTC, whatever the session's time zone.
CREATE FUNCTION audit_row(p_type text, p_id uuid) RETURNS jsonb
  LANGUAGE plpgsql STABLE SET timezone = 'UTC' AS $$
BEGIN
  CASE p_type
    WHEN 'order' THEN RETURN (SELECT to_jsonb(t) FROM orders t WHERE t.id = p_id);
    WHEN 'event' THEN RETURN (SELECT to_jsonb(t) FROM events t WHERE t.id = p_id);
    WHEN 'performance' THEN RETURN (SELECT to_jsonb(t) FROM performances t WHERE t.id = p_id);
    WHEN 'ticket' THEN RETURN (SELECT to_jsonb(t) FROM tickets t WHERE t.id = p_id);
    WHEN 'refund' THEN RETURN (SELECT to_jsonb(t) FROM refunds t WHERE t.id = p_id);
    WHEN 'hold' THEN RETURN (SELECT to_jsonb(t) FROM holds t WHERE t.id = p_id);
    WHEN 'question' THEN RETURN (SELECT to_jsonb(t) FROM registration_questions t WHERE t.id = p_id);
    WHEN 'webhook_endpoint' THEN RETURN (SELECT to_jsonb(t) FROM webhook_endpoints t WHERE t.id = p_id);
    WHEN 'webhook_delivery' THEN RETURN (SELECT to_jsonb(t) FROM webhook_deliveries t WHERE t.id = p_id);
    WHEN 'member' THEN RETURN (SELECT to_jsonb(t) FROM memberships t WHERE t.id = p_id);
    WHEN 'api_key' THEN RETURN (SELECT to_jsonb(t) FROM api_keys t WHERE t.id = p_id);
    WHEN 'organizer' THEN
      RETURN (SELECT to_jsonb(t) || jsonb_build_object('organizer_id', t.id) FROM organizers t WHERE t.id = p_id);
    WHEN 'user' THEN RETURN (SELECT to_jsonb(t) FROM users t WHERE t.id = p_id);
    ELSE RETURN NULL;
  END CASE;
END;
$$;

-- A field's value as the log shows it: a secret (a webhook secret, a password hash, a TOTP
-- secret) says only whether it is set, never what it is.
CREATE FUNCTION audit_value(p_field text, p_value jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_value IS NULL OR p_value = 'null'::jsonb THEN 'null'::jsonb
    WHEN p_field IN ('secret', 'password_hash', 'totp_secret', 'totp_pending_secret', 'csrf_token')
      THEN '"[redacted]"'::jsonb
    ELSE p_value
  END;
$$;

-- The fields that differ between two states of a row, {field: {before, after}}. Ids,
-- bookkeeping stamps, counters and hashes of values nobody sees (an API key's, a link's)
-- are left out. A creation (no before) lists the fields it set; a deletion (no after) the
-- fields the row had.
CREATE FUNCTION audit_changes(p_before jsonb, p_after jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE AS $$
  SELECT COALESCE(
    jsonb_object_agg(k, jsonb_build_object('before', audit_value(k, b), 'after', audit_value(k, a))),
    '{}'::jsonb)
  FROM (
    SELECT k, p_before -> k AS b, p_after -> k AS a
    FROM (SELECT jsonb_object_keys(COALESCE(p_before, '{}'::jsonb) || COALESCE(p_after, '{}'::jsonb)) AS k) keys
  ) fields
  WHERE k NOT IN ('id', 'organizer_id', 'created_at', 'updated_at', 'last_used_at', 'last_seen_at',
                  'totp_last_step', 'sold_count', 'key_hash', 'token_hash', 'code_hash')
    AND b IS DISTINCT FROM a
    AND NOT (p_before IS NULL AND (a IS NULL OR a = 'null'::jsonb))
    AND NOT (p_after IS NULL AND (b IS NULL OR b = 'null'::jsonb));
$$;
