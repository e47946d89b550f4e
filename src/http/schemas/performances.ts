/** Performances (scheduled dates) and their availability. */
import { Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, Timestamp, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';

const PERFORMANCE_STATUSES = ['draft', 'published', 'cancelled'] as const;

export const Performance = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('performance'),
    event_id: Uuid,
    status: Type.Union(
      PERFORMANCE_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          '`draft` (its event is not published yet), `published` (live), `cancelled` (reserved; not set by the API today)',
      },
    ),
    title: Nullable(Type.String()),
    starts_at: Timestamp,
    ends_at: Timestamp,
    capacity: Type.Integer(),
    online_sales_enabled: Type.Boolean(),
    box_office_sales_enabled: Type.Boolean(),
    translations: Type.Array(Type.Object({ locale: Type.String(), title: Nullable(Type.String()) })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Performance', description: 'A scheduled date of an event', examples: [EXAMPLES.performance] },
);
export const PerformanceList = ListOf(Performance, 'PerformanceList');

export const Availability = Type.Object(
  {
    object: Type.Literal('availability'),
    performance_id: Uuid,
    performance_remaining: Type.Integer({
      description: 'capacity − sold − active cart holds − hold allocations, never below 0',
    }),
    ticket_types: Type.Array(
      Type.Object({
        ticket_type_id: Uuid,
        remaining: Type.Integer({
          description: 'the smaller of performance_remaining and what is left of the type’s cap',
        }),
      }),
    ),
  },
  {
    $id: 'Availability',
    description: 'What is left to sell at a performance, overall and per ticket type',
    examples: [EXAMPLES.availability],
  },
);

export const ListPerformancesQuery = Type.Object(PaginationQuery);
