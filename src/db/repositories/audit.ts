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
 * Appends entries in one prepared statement (the entries travel as arrays, so the text is
 * the same for any number; a lone write is the one-element case): for each, the target's
 * current row, the changed fields, the actor's label and (on the admin API) the
 * organizer are all read by the statement. Entries go in in the order given. Returns per
 * entry whether it was recorded: false when no organizer could be found (an admin write
 * outside any organizer).
 */
export async function insertAuditEntries(db: Executor, entries: NewAuditEntry[]): Promise<boolean[]> {
  const column = <T>(pick: (e: NewAuditEntry) => T) => entries.map(pick);
  const result = await sql<{ n: string }>`${PREPARED}
    WITH entry AS (
      SELECT e.*, o.organizer_id AS resolved_organizer_id, s.before AS before_row, s.after AS after_row
      FROM unnest(${column((e) => e.organizerId)}::uuid[], ${column((e) => e.occurredAt)}::timestamptz[],
                  ${column((e) => e.actorType)}::text[], ${column((e) => e.actorId)}::uuid[], ${column((e) => e.actorLabel)}::text[],
                  ${column((e) => e.action)}::text[], ${column((e) => e.targetType)}::text[], ${column((e) => e.targetId)}::uuid[],
                  ${column((e) => e.diff)}::boolean[], ${column((e) => e.before)}::jsonb[], ${column((e) => e.ip)}::text[],
                  ${column((e) => e.userAgent)}::text[], ${column((e) => e.requestId)}::text[])
        WITH ORDINALITY AS e(organizer_id, occurred_at, actor_type, actor_id, actor_label, action, target_type, target_id,
                             diff, before, ip, user_agent, request_id, n),
      LATERAL (SELECT e.before,
                      CASE WHEN e.target_id IS NULL THEN NULL ELSE audit_row(e.target_type, e.target_id) END AS after) s,
      LATERAL (SELECT COALESCE(e.organizer_id, (s.after ->> 'organizer_id')::uuid,
                               (s.before ->> 'organizer_id')::uuid) AS organizer_id) o
    ),
    recorded AS (
      INSERT INTO audit_log (organizer_id, occurred_at, actor_type, actor_id, actor_label, action, target_type, target_id,
                             changes, ip, user_agent, request_id)
      SELECT e.resolved_organizer_id, e.occurred_at, e.actor_type, e.actor_id,
             COALESCE(e.actor_label,
                      CASE e.actor_type
                        WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = e.actor_id)
                        WHEN 'api_key' THEN (SELECT COALESCE(k.name || ' (' || k.key_preview || ')', k.key_preview)
                                             FROM api_keys k WHERE k.id = e.actor_id)
                      END,
                      e.actor_type),
             e.action, e.target_type, e.target_id,
             CASE WHEN e.diff THEN audit_changes(e.before_row, e.after_row) ELSE '{}'::jsonb END,
             e.ip, e.user_agent, e.request_id
      FROM entry e
      WHERE e.resolved_organizer_id IS NOT NULL
      ORDER BY e.n
    )
    SELECT n FROM entry WHERE resolved_organizer_id IS NOT NULL`.execute(db);
  const recorded = new Set(result.rows.map((row) => Number(row.n)));
  return entries.map((_, i) => recorded.has(i + 1));
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
