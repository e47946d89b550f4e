/** The audit log's query and entry (docs/dashboard.md, "Audit log"). */
import { Type } from '@sinclair/typebox';
import { Nullable, PaginationQuery, rangeEndRule, StringEnum, Timestamp, Uuid } from './common.ts';

const ACTOR_TYPES = ['user', 'api_key', 'operator'] as const;

const timeFilter = (bound: 'gte' | 'lt') =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        bound === 'gte'
          ? 'only entries that occurred at or after this instant (inclusive); RFC 3339 (docs/validation.md)'
          : `only entries that occurred before this instant (exclusive); RFC 3339${rangeEndRule('occurred')} (docs/validation.md)`,
      examples: ['2026-11-24T22:23:08.685Z'],
    }),
  );

const AuditFilterQuery = {
  actor_type: Type.Optional(StringEnum(ACTOR_TYPES, { description: 'only entries of this kind of actor' })),
  actor_id: Type.Optional(Type.Unsafe<string>({ ...Uuid, description: 'only entries of this user or API key' })),
  action: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'only this action (an operationId, e.g. `settleOrder`)' }),
  ),
  target_type: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'only targets of this type (e.g. `order`, `event`)' }),
  ),
  target_id: Type.Optional(Type.Unsafe<string>({ ...Uuid, description: 'only entries about this resource' })),
  occurred_gte: timeFilter('gte'),
  occurred_lt: timeFilter('lt'),
};

export const AuditLogQuery = Type.Object({ ...PaginationQuery, ...AuditFilterQuery }, { additionalProperties: false });

export const AuditLogExportQuery = Type.Object(
  {
    ...AuditFilterQuery,
    bom: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'start the file with a UTF-8 byte order mark, so spreadsheet programs read it as UTF-8',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuditEntry = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('audit_entry'),
    occurred_at: Timestamp,
    organizer_id: Uuid,
    actor: Type.Object(
      {
        type: StringEnum(ACTOR_TYPES),
        id: Nullable(Uuid),
        label: Type.String({ description: "the user's e-mail, the API key's name and preview, or `operator`" }),
      },
      { description: 'who did it: a signed-in user, an API key, or the platform operator' },
    ),
    action: Type.String({ description: 'the operationId of the request, e.g. `settleOrder`, `createApiKey`' }),
    target: Type.Object(
      { type: Type.String({ description: 'e.g. `order`, `event`, `member`' }), id: Nullable(Uuid) },
      { description: 'what it was done to' },
    ),
    changes: Type.Record(Type.String(), Type.Object({ before: Type.Unknown(), after: Type.Unknown() }), {
      description:
        'the fields of the target that changed, `{field: {before, after}}`; a creation has `before: null`; secrets show as `"[redacted]"`; `{}` when nothing to show',
    }),
    ip: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    request_id: Nullable(Type.String()),
  },
  { description: 'One entry of the audit log' },
);

export const AuditLogCsv = {
  description: 'The matching entries as CSV, newest first (docs/exports.md for the format)',
  headers: {
    'content-disposition': { description: '`attachment; filename=audit-log.csv`', type: 'string' },
  },
  content: {
    'text/csv': {
      schema: {
        type: 'string',
        examples: [
          'id,occurred_at,actor_type,actor_id,actor_label,action,target_type,target_id,changes,ip,user_agent,request_id\r\n' +
            '0b9c1f52-5b1e-4a8e-9a53-3a0f3f9d8c11,2026-11-24T22:23:08.685Z,user,6f1d7a2c-3e4b-4c5d-8e9f-0a1b2c3d4e5f,' +
            'ada@example.com,updateEvent,event,1c721279-854c-458a-9124-f115dfc1ca66,' +
            '"{""title"":{""before"":""Gala"",""after"":""Winter gala""}}",203.0.113.7,Mozilla/5.0,req-1\r\n',
        ],
      },
    },
  },
} as const;
