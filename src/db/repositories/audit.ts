/**
 * SQL of the audit log (migrations/0017_audit_log.sql; docs/dashboard.md, "Audit log"):
 * the one-statement insert of an entry, the snapshot of a target before a write, the
 * filtered list, and the retention purge (the only DELETE the table's trigger lets through).
 */
import { sql, type Selectable } from 'kysely';
import { PREPARED } from '../prepared.ts';
import { withTransaction, type Executor } from '../transaction.ts';
import type { AuditActorType, AuditLogTable } from '../schema.ts';

export type AuditEntryRow = Selectable<AuditLogTable>;

/** The target's row as JSON (audit_row() of the migration), or null for none or a type without one. */
export async function snapshotTarget(db: Executor, type: string, id: string): Promise<string | null> {
  const result = await sql<{ row: string | null }>`${PREPARED}
    SELECT audit_row(${type}::text, ${id}::uuid)::text AS row`.execute(db);
  return result.rows[0]?.row ?? null;
}

export interface NewAuditEntry {
  /** Null on the admin API: the organizer is the target's (or the snapshot's). */
  organizerId: string | null;
  occurredAt: Date;
  actorType: AuditActorType;
  actorId: string | null;
  /** Null: the user's e-mail or the key's name and preview, read in the same statement. */
  actorLabel: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  /**
   * Whether the target's fields are compared: `before` is its snapshot from before the
   * write (null for a creation), the after state is read by the statement itself.
   */
  diff: boolean;
  before: string | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/**
 * Appends one entry in one prepared statement: the target's current row, the changed
 * fields, the actor's label and (on the admin API) the organizer are all read by it.
 * Returns false when no organizer could be found (an admin write outside any organizer).
 */
export async function insertAuditEntry(db: Executor, e: NewAuditEntry): Promise<boolean> {
  const result = await sql`${PREPARED}
    INSERT INTO audit_log (organizer_id, occurred_at, actor_type, actor_id, actor_label, action, target_type, target_id,
                           changes, ip, user_agent, request_id)
    SELECT o.organizer_id, ${e.occurredAt}::timestamptz, ${e.actorType}::text, ${e.actorId}::uuid,
           COALESCE(${e.actorLabel}::text,
                    CASE ${e.actorType}::text
                      WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = ${e.actorId}::uuid)
                      WHEN 'api_key' THEN (SELECT COALESCE(k.name || ' (' || k.key_preview || ')', k.key_preview)
                                           FROM api_keys k WHERE k.id = ${e.actorId}::uuid)
                    END,
                    ${e.actorType}::text),
           ${e.action}::text, ${e.targetType}::text, ${e.targetId}::uuid,
           CASE WHEN ${e.diff}::boolean THEN audit_changes(s.before, s.after) ELSE '{}'::jsonb END,
           ${e.ip}::text, ${e.userAgent}::text, ${e.requestId}::text
    FROM (SELECT ${e.before}::jsonb AS before,
                 CASE WHEN ${e.targetId}::uuid IS NULL THEN NULL
                      ELSE audit_row(${e.targetType}::text, ${e.targetId}::uuid) END AS after) s,
         LATERAL (SELECT COALESCE(${e.organizerId}::uuid, (s.after ->> 'organizer_id')::uuid,
                                  (s.before ->> 'organizer_id')::uuid) AS organizer_id) o
    WHERE o.organizer_id IS NOT NULL`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

export interface AuditFilters {
  actorType?: AuditActorType | undefined;
  actorId?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  occurredGte?: Date | undefined;
  occurredLt?: Date | undefined;
}

/** The organizer's entries matching the filters; the caller orders and pages (keysetPage). */
export function auditListQuery(db: Executor, organizerId: string, f: AuditFilters) {
  let q = db.selectFrom('audit_log').selectAll('audit_log').where('audit_log.organizer_id', '=', organizerId);
  if (f.actorType !== undefined) q = q.where('audit_log.actor_type', '=', f.actorType);
  if (f.actorId !== undefined) q = q.where('audit_log.actor_id', '=', f.actorId);
  if (f.action !== undefined) q = q.where('audit_log.action', '=', f.action);
  if (f.targetType !== undefined) q = q.where('audit_log.target_type', '=', f.targetType);
  if (f.targetId !== undefined) q = q.where('audit_log.target_id', '=', f.targetId);
  if (f.occurredGte !== undefined) q = q.where('audit_log.occurred_at', '>=', f.occurredGte);
  if (f.occurredLt !== undefined) q = q.where('audit_log.occurred_at', '<', f.occurredLt);
  return q;
}

/**
 * Deletes up to `batch` entries that occurred before `cutoff`, in a transaction that
 * announces the cutoff to the table's trigger: any other DELETE (or one of a newer row)
 * is refused by the database.
 */
export async function purgeAuditEntriesBefore(db: Executor, cutoff: Date, batch: number): Promise<number> {
  return withTransaction(db, async (trx) => {
    await sql`SELECT set_config('marquee.audit_purge_before', ${cutoff.toISOString()}, true)`.execute(trx);
    const result = await sql`
      DELETE FROM audit_log
      WHERE id IN (SELECT id FROM audit_log WHERE occurred_at < ${cutoff} LIMIT ${batch})
    `.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  });
}
