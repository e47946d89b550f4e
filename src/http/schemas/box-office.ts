/**
 * Request and response schemas of the dashboard's catalog and box-office operations
 * (docs/dashboard.md, "Box office and catalog operations") that the admin API and /v1 do
 * not already define.
 */
import { Type } from '@sinclair/typebox';
import { PaginationQuery, Timestamp, Uuid } from './common.ts';
import { CreatePerformance, CreateTicketType } from './events.ts';

export const AddPerformances = Type.Object(
  {
    performances: Type.Array(CreatePerformance, {
      minItems: 1,
      maxItems: 50,
      description: 'as in POST /v1/events; the event may have at most 50 performances in all',
    }),
  },
  { additionalProperties: false },
);

export const AddTicketTypes = Type.Object(
  {
    ticket_types: Type.Array(CreateTicketType, {
      minItems: 1,
      maxItems: 20,
      description: 'as in POST /v1/events; the event may have at most 20 ticket types in all',
    }),
  },
  { additionalProperties: false },
);

export const ListHoldsQuery = Type.Object(
  {
    ...PaginationQuery,
    include_released: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'false (default): only holds that still hold seats (not released, a cart hold not expired); true: every hold',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ResendTickets = Type.Object(
  {
    email: Type.Optional(
      Type.String({
        format: 'email',
        minLength: 3,
        maxLength: 254,
        description: 'where to send them; default: the buyer’s e-mail address',
      }),
    ),
  },
  { additionalProperties: false },
);

export const QueuedEmail = Type.Object(
  {
    object: Type.Literal('email'),
    id: Uuid,
    kind: Type.Literal('etickets'),
    recipient: Type.String(),
    status: Type.Literal('pending'),
    created_at: Timestamp,
  },
  { description: 'An e-mail queued for the mail worker; the mail log shows how it went' },
);
