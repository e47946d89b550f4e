/**
 * The organizer's audit log (docs/dashboard.md, "Audit log"): a page of it, newest first,
 * and the same filters as a CSV download. Owners only (permission `team`). Entries are
 * written by the audit hook (src/http/plugins/audit.ts), never by a route.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  auditLogBatches,
  listAuditLog,
  type AuditEntryRow,
  type AuditFilters,
} from '../../../domain/audit/audit-log.ts';
import type { AuditChanges } from '../../../db/schema.ts';
import { errorResponses, ListOf, PAGE_LIMIT_DEFAULT, success } from '../../schemas/common.ts';
import { AuditEntry, AuditLogCsv, AuditLogExportQuery, AuditLogQuery } from '../../schemas/audit.ts';
import { presentList } from '../../presenters/list.ts';
import { csvStream, type Column } from '../../presenters/exports.ts';
import { sessionOf } from './session.ts';

/** A timestamp of a stored row, as to_jsonb() writes it in UTC, in the API's form (…Z, milliseconds). */
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+00:00$/;
const wireValue = (value: unknown) =>
  typeof value === 'string' && UTC_TIMESTAMP.test(value) ? new Date(value).toISOString() : value;

function presentChanges(changes: AuditChanges): AuditChanges {
  const out: AuditChanges = {};
  for (const [field, { before, after }] of Object.entries(changes))
    out[field] = { before: wireValue(before), after: wireValue(after) };
  return out;
}

function presentAuditEntry(row: AuditEntryRow) {
  return {
    id: row.id,
    object: 'audit_entry' as const,
    occurred_at: row.occurred_at,
    organizer_id: row.organizer_id,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    changes: presentChanges(row.changes),
    ip: row.ip,
    user_agent: row.user_agent,
    request_id: row.request_id,
  };
}

const CSV_COLUMNS: Column<AuditEntryRow>[] = [
  { header: 'id', cell: (r) => r.id },
  { header: 'occurred_at', cell: (r) => r.occurred_at.toISOString() },
  { header: 'actor_type', cell: (r) => r.actor_type },
  { header: 'actor_id', cell: (r) => r.actor_id },
  { header: 'actor_label', cell: (r) => r.actor_label },
  { header: 'action', cell: (r) => r.action },
  { header: 'target_type', cell: (r) => r.target_type },
  { header: 'target_id', cell: (r) => r.target_id },
  { header: 'changes', cell: (r) => JSON.stringify(presentChanges(r.changes)) },
  { header: 'ip', cell: (r) => r.ip },
  { header: 'user_agent', cell: (r) => r.user_agent },
  { header: 'request_id', cell: (r) => r.request_id },
];

type FilterQuery = {
  actor_type?: AuditFilters['actorType'];
  actor_id?: string | undefined;
  action?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  occurred_gte?: string | undefined;
  occurred_lt?: string | undefined;
};

const at = (value: string | undefined) => (value === undefined ? undefined : new Date(value));

function filtersOf(q: FilterQuery): AuditFilters {
  return {
    actorType: q.actor_type,
    actorId: q.actor_id,
    action: q.action,
    targetType: q.target_type,
    targetId: q.target_id,
    occurredGte: at(q.occurred_gte),
    occurredLt: at(q.occurred_lt),
  };
}

const FILTERS_TEXT =
  'Filter by `actor_type` (`user`, `api_key`, `operator`), `actor_id`, `action` (an operationId), `target_type`, `target_id`, and by time: `occurred_gte` (inclusive), `occurred_lt` (exclusive; an empty range answers 400 naming it).';

export const auditLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/audit_log',
    {
      config: { reads: 'replica' },
      schema: {
        tags: ['team'],
        operationId: 'listAuditLog',
        summary: 'The audit log, newest first',
        description: `Every dashboard action, API-key write and operator change of the organizer: who (a user, an API key or the operator), what (the operationId), to what, the fields that changed, when, from where. Newest first and paginated. ${FILTERS_TEXT} Entries are kept for AUDIT_LOG_RETENTION_DAYS (a year by default) and never change.`,
        querystring: AuditLogQuery,
        response: { 200: success(ListOf(AuditEntry)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after, ...filters } = request.query;
      const page = await listAuditLog(request.db, sessionOf(request).organizerId, filtersOf(filters), {
        limit: limit ?? PAGE_LIMIT_DEFAULT,
        starting_after,
      });
      return presentList(page, presentAuditEntry);
    },
  );

  app.get(
    '/audit_log/export',
    {
      config: { reads: 'replica' },
      schema: {
        tags: ['team'],
        operationId: 'exportAuditLog',
        summary: 'The audit log as CSV',
        description: `Every entry matching the filters as CSV, newest first, one row per entry; \`changes\` is the entry's JSON. ${FILTERS_TEXT} \`bom=true\` starts the file with a byte order mark for spreadsheet programs. Streamed in batches (docs/exports.md).`,
        querystring: AuditLogExportQuery,
        response: { 200: AuditLogCsv, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { bom, ...filters } = request.query;
      const batches = auditLogBatches(
        request.db,
        sessionOf(request).organizerId,
        filtersOf(filters),
        app.deps.exportBatchSize,
      );
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename=audit-log.csv')
        .header('cache-control', 'no-store')
        .send(csvStream(batches, CSV_COLUMNS, bom ?? false));
    },
  );
};
