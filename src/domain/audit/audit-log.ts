/**
 * The organizer's audit log (docs/dashboard.md, "Audit log"): recording an entry, reading
 * the log (a page, or every entry for the CSV export) and the retention purge. What is
 * recorded, and when, is decided by the HTTP layer's hook (src/http/plugins/audit.ts);
 * the entry's changes are computed by the database from the target's rows
 * (migrations/0017_audit_log.sql), never from a request body, so no secret a caller sent
 * can reach the log.
 */
import {
  auditListQuery,
  insertAuditEntries,
  purgeAuditEntriesBefore,
  snapshotTarget,
  type AuditEntryRow,
  type AuditFilters,
  type NewAuditEntry,
} from '../../db/repositories/audit.ts';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/client.ts';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import { GroupQueue, type Settled } from '../../lib/group-queue.ts';
import { checkTimeRange } from '../../lib/time-range.ts';

export type { AuditEntryRow, AuditFilters };

/**
 * The types of target whose fields an entry compares (audit_row() of the migration);
 * another type is recorded with `changes: {}`.
 */
export const SNAPSHOT_TYPES: ReadonlySet<string> = new Set([
  'order',
  'event',
  'performance',
  'ticket',
  'refund',
  'hold',
  'question',
  'webhook_endpoint',
  'webhook_delivery',
  'member',
  'api_key',
  'door_device',
  'organizer',
  'user',
]);

/** The target's state before a write (its row as JSON text), or null. */
export function snapshotBefore(db: Executor, type: string, id: string): Promise<string | null> {
  return snapshotTarget(db, type, id);
}

/**
 * Entries recorded at the same time share one statement (and, outside a transaction, one
 * commit): every write of the API records one, so in a rush of sales this is a statement
 * and a commit per batch instead of per request. An entry is still written before its
 * response leaves (the hook awaits it). Per database handle.
 */
const auditWrites = new WeakMap<Executor, GroupQueue<NewAuditEntry, boolean>>();
/** Statements in flight per handle, and entries per statement. */
const WRITES = { maxRunning: 2, maxBatch: 64 };

/**
 * Appends an entry; false when it belongs to no organizer (nothing recorded). Inside a
 * transaction (an Idempotency-Key's request transaction) the entry is written in it, so
 * it commits with the change or not at all; otherwise with the entries written meanwhile.
 */
export async function recordAuditEntry(db: Executor, entry: NewAuditEntry): Promise<boolean> {
  if (inTransaction(db)) return (await insertAuditEntries(db, [entry]))[0]!;
  let queue = auditWrites.get(db);
  if (queue === undefined) {
    queue = new GroupQueue((entries) => writeEntries(db, entries), WRITES);
    auditWrites.set(db, queue);
  }
  return queue.submit('', entry);
}

/** The entries in one statement; if it fails, each alone, so one bad entry fails only itself. */
async function writeEntries(db: Executor, entries: NewAuditEntry[]): Promise<Settled<boolean>[]> {
  try {
    return (await insertAuditEntries(db, entries)).map((value) => ({ ok: true, value }));
  } catch (err) {
    if (entries.length === 1) return [{ ok: false, error: err }];
  }
  return Promise.all(
    entries.map((entry) =>
      insertAuditEntries(db, [entry]).then(
        ([value]): Settled<boolean> => ({ ok: true, value: value! }),
        (error: unknown): Settled<boolean> => ({ ok: false, error }),
      ),
    ),
  );
}

/** One page of the organizer's log, newest first. */
export async function listAuditLog(
  db: Executor,
  organizerId: string,
  filters: AuditFilters,
  page: PageRequest,
): Promise<Page<AuditEntryRow>> {
  checkTimeRange('occurred', filters.occurredGte, filters.occurredLt);
  return keysetPage(db, auditListQuery(db, organizerId, filters), page, {
    table: 'audit_log',
    sortColumn: 'occurred_at',
    direction: 'desc',
    organizerId,
  });
}

/**
 * Validates the filters before an export starts streaming (a 400 must come before the
 * first byte), then hands back its batches: every matching entry, newest first.
 */
export function auditLogBatches(
  db: Executor,
  organizerId: string,
  filters: AuditFilters,
  batchSize: number,
): AsyncIterable<AuditEntryRow[]> {
  checkTimeRange('occurred', filters.occurredGte, filters.occurredLt);
  return (async function* () {
    let after: string | undefined;
    for (;;) {
      const page = await keysetPage(
        db,
        auditListQuery(db, organizerId, filters),
        { limit: batchSize, starting_after: after },
        { table: 'audit_log', sortColumn: 'occurred_at', direction: 'desc', organizerId },
      );
      yield page.data;
      if (!page.has_more) return;
      after = page.data.at(-1)!.id;
    }
  })();
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_BATCH = 5000;

/** Deletes the entries older than the retention (AUDIT_LOG_RETENTION_DAYS), in batches; returns how many. */
export async function purgeExpiredAuditEntries(deps: { db: Db; clock: Clock; retentionDays: number }): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.retentionDays * DAY_MS);
  let total = 0;
  for (;;) {
    const n = await purgeAuditEntriesBefore(deps.db, cutoff, PURGE_BATCH);
    total += n;
    if (n < PURGE_BATCH) return total;
  }
}
