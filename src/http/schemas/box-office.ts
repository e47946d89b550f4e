/**
 * Request and response schemas of the dashboard's catalog and box-office operations
 * (docs/dashboard.md, "Box office and catalog operations") that the admin API and /v1 do
 * not already define.
 */
import { Type, type TArray, type TSchema } from '@sinclair/typebox';
import { PaginationQuery, Timestamp, Uuid } from './common.ts';
import { CreatePerformance, CreateTicketType } from './events.ts';

/** The body of an addition to an event: `key`, 1 to `max` items as POST /v1/events takes them. */
function additionBody<K extends string, T extends TSchema>(key: K, item: T, max: number, noun: string) {
  const items = Type.Array(item, {
    minItems: 1,
    maxItems: max,
    description: `as in POST /v1/events; the event may have at most ${max} ${noun} in all`,
  });
  return Type.Object({ [key]: items } as Record<K, TArray<T>>, { additionalProperties: false });
}

export const AddPerformances = additionBody('performances', CreatePerformance, 50, 'performances');

export const AddTicketTypes = additionBody('ticket_types', CreateTicketType, 20, 'ticket types');

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
