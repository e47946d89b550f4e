-- The audit log's view of a door device (docs/dashboard.md, "Door devices"): audit_row()
-- of migrations/0017_audit_log.sql gains the type, without the provisioning token's hash
-- (a secret's) and the sync stamp (bookkeeping, moved by every sync, never by a write).

CREATE OR REPLACE FUNCTION audit_row(p_type text, p_id uuid) RETURNS jsonb
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
    WHEN 'door_device' THEN
      RETURN (SELECT to_jsonb(t) - 'provisioning_token_hash' - 'last_synced_at' FROM door_devices t WHERE t.id = p_id);
    WHEN 'organizer' THEN
      RETURN (SELECT to_jsonb(t) || jsonb_build_object('organizer_id', t.id) FROM organizers t WHERE t.id = p_id);
    WHEN 'user' THEN RETURN (SELECT to_jsonb(t) FROM users t WHERE t.id = p_id);
    ELSE RETURN NULL;
  END CASE;
END;
$$;
