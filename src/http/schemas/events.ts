/** Events: the create/update contracts and the event (list and detail) shapes. */
import { Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, ref, StringEnum, Timestamp, TimestampInput, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';

const TITLE_MIN = 3;
const TITLE_MAX = 512;
const DESCRIPTION_MAX = 20000;

const EventTranslation = Type.Object({
  locale: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
});

const eventFields = {
  id: Uuid,
  object: Type.Literal('event'),
  title: Type.String({ description: 'the `en` translation first, else the first available' }),
  description: Nullable(Type.String({ description: 'sanitized HTML' })),
  admission_type: Type.Union([Type.Literal('general_admission'), Type.Literal('reserved_seating')]),
  image_url: Nullable(Type.String()),
  contact_email: Nullable(Type.String()),
  timezone: Type.String({ description: 'IANA time zone id' }),
  venue_id: Uuid,
  category_id: Uuid,
  is_archived: Type.Boolean(),
  translations: Type.Array(EventTranslation),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Event = Type.Object(eventFields, {
  $id: 'Event',
  description: 'An event, as listed (without its ticket types)',
  examples: [EXAMPLES.event],
});
export const EventList = ListOf(Event, 'EventList');

export const Price = Type.Object(
  {
    performance_id: Uuid,
    seat_category_key: Type.String(),
    price_minor: Type.Integer(),
    limited_quantity: Nullable(Type.Integer({ description: 'per-performance sale cap; null means uncapped' })),
    is_active: Type.Boolean(),
  },
  { $id: 'Price', description: 'The price of a ticket type at one performance' },
);

const TicketTypeTranslation = Type.Object({
  locale: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
});

export const TicketType = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('ticket_type'),
    name: Type.String(),
    description: Nullable(Type.String()),
    sort_order: Type.Integer(),
    translations: Type.Array(TicketTypeTranslation),
    updated_at: Type.Unsafe<Date | string>(
      Type.String({
        format: 'date-time',
        description: 'when the ticket type last changed (it cannot change through the API: its creation time)',
      }),
    ),
    prices: Type.Array(ref(Price)),
  },
  { $id: 'TicketType', description: 'A ticket type of an event, with its price at each performance' },
);

export const EventDetail = Type.Object(
  { ...eventFields, ticket_types: Type.Array(ref(TicketType)) },
  { $id: 'EventDetail', description: 'An event with its ticket types and prices', examples: [EXAMPLES.eventDetail] },
);

const Title = Type.String({ minLength: TITLE_MIN, maxLength: TITLE_MAX });
const Description = Nullable(Type.String({ maxLength: DESCRIPTION_MAX, description: 'HTML; sanitized server-side' }));

/** A performance item of POST /v1/events, and of the dashboard's addPerformances. */
export const CreatePerformance = Type.Object(
  {
    starts_at: TimestampInput,
    ends_at: Type.Optional(Nullable(TimestampInput)),
    capacity: Type.Integer({ minimum: 1, maximum: 1000000 }),
    title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 512 }))),
  },
  { additionalProperties: false },
);

/** A ticket type item of POST /v1/events, and of the dashboard's addTicketTypes. */
export const CreateTicketType = Type.Object(
  {
    name: Type.String({ minLength: 2, maxLength: 64 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    price_minor: Type.Integer({ minimum: 0, maximum: 100000000 }),
    quantity: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1000000 }))),
  },
  { additionalProperties: false },
);

// The object branch first, so a bad `venue.id` or `venue.name` is the error reported.
const VenueInput = Type.Union(
  [
    Type.Object(
      {
        id: Type.Optional(Uuid),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      },
      { additionalProperties: false },
    ),
    Type.Literal('online'),
  ],
  {
    description:
      '`{id}` of an existing venue, `{name}` (found case-insensitively, else created) or the string `online`',
  },
);

export const CreateEvent = Type.Object(
  {
    title: Title,
    description: Type.Optional(Description),
    timezone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    venue: VenueInput,
    category_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    performances: Type.Array(CreatePerformance, { minItems: 1, maxItems: 50 }),
    ticket_types: Type.Array(CreateTicketType, { minItems: 1, maxItems: 20 }),
    publish: Type.Optional(Type.Boolean({ description: 'default true; false creates a draft' })),
  },
  { $id: 'CreateEventRequest', additionalProperties: false, examples: [EXAMPLES.createEvent] },
);

export const UpdateEvent = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    contact_email: Type.Optional(Nullable(Type.String({ minLength: 10, maxLength: 50 }))),
    is_archived: Type.Optional(Type.Boolean()),
  },
  { $id: 'UpdateEventRequest', additionalProperties: false, examples: [EXAMPLES.updateEvent] },
);

export const ListEventsQuery = Type.Object({
  ...PaginationQuery,
  status: Type.Optional(
    StringEnum(['draft', 'published'] as const, {
      description:
        'Only drafts (created with `publish: false`, not on sale) or only published events. Absent: both (docs/catalog.md).',
    }),
  ),
  title: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: TITLE_MAX,
      description: 'Only events whose title contains this text, ignoring case (docs/catalog.md).',
    }),
  ),
});
