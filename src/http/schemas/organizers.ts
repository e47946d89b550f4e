import { Type } from '@sinclair/typebox';
import { LANGUAGES } from '../../i18n/index.ts';
import { Nullable, StringEnum, Timestamp, TimestampInput, Uuid } from './common.ts';

/** A language of what buyers receive: one a catalogue ships for (docs/tickets.md, "Languages"). */
export const TicketLanguage = Type.String({
  maxLength: 35,
  description: `a language Marquee ships: ${LANGUAGES.join(', ')}`,
});
const PaperSize = StringEnum(['a4', 'letter'] as const, { description: 'the paper size of its PDF tickets' });

export const Organizer = Type.Object({
  id: Uuid,
  object: Type.Literal('organizer'),
  name: Type.String(),
  timezone: Type.String(),
  currency: Type.String(),
  box_office_fee_minor: Type.Integer({ description: 'box-office fee per ticket, minor units' }),
  tax_rate_bps: Type.Integer({ description: 'tax on items and fees, basis points' }),
  contact_email: Nullable(Type.String({ description: 'where buyers reach the organizer' })),
  sender_email: Nullable(
    Type.String({
      description:
        'the Reply-To of the receipts and e-tickets (else contact_email); the From stays the platform address, with the organizer name',
    }),
  ),
  default_language: Nullable(
    Type.String({
      description: 'the language of its buyers’ e-mails, PDF tickets and passes unless an event sets its own; null: en',
    }),
  ),
  ticket_paper_size: PaperSize,
  currency_locked: Type.Boolean({ description: 'true once the organizer has an order: the currency is then fixed' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Name = Type.String({ minLength: 1, maxLength: 200 });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone id' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });
/** An address of the organizer's; null clears it. */
const OrganizerEmail = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'an e-mail address' });

export const CreateOrganizer = Type.Object(
  { name: Name, timezone: Type.Optional(TimeZone), currency: Type.Optional(Currency) },
  { additionalProperties: false },
);

export const UpdateOrganizer = Type.Object(
  {
    name: Type.Optional(Name),
    timezone: Type.Optional(TimeZone),
    currency: Type.Optional(Currency),
    box_office_fee_minor: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000000 })),
    tax_rate_bps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
    contact_email: Type.Optional(Nullable(OrganizerEmail)),
    sender_email: Type.Optional(Nullable(OrganizerEmail)),
    default_language: Type.Optional(Nullable(TicketLanguage)),
    ticket_paper_size: Type.Optional(PaperSize),
  },
  { additionalProperties: false },
);

const Scope = Type.Union([Type.Literal('read'), Type.Literal('write')]);
/** A key's scopes as lists show them: a door device's key holds `check_in` alone (docs/door.md). */
const KeyScope = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('check_in')]);

export const CreateApiKey = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    scopes: Type.Array(Scope, { minItems: 1, maxItems: 2, uniqueItems: true }),
    expires_at: Type.Optional(Nullable(TimestampInput)),
  },
  { additionalProperties: false },
);

export const CreatedApiKey = Type.Object({
  id: Uuid,
  object: Type.Literal('api_key'),
  key: Type.String({ description: 'the raw key; shown only in this response' }),
  scopes: Type.Array(KeyScope),
  expires_at: Nullable(Timestamp),
  created_at: Timestamp,
});

export const RevokedApiKey = Type.Object({
  id: Uuid,
  object: Type.Literal('api_key'),
  revoked_at: Timestamp,
});

/** An API key as the admin list shows it: never the key, only its first characters. */
export const ListedApiKey = Type.Object({
  id: Uuid,
  object: Type.Literal('api_key'),
  name: Nullable(Type.String()),
  key_preview: Type.String({ description: 'the first characters of the key (prefix included), to recognise it' }),
  scopes: Type.Array(KeyScope),
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
  created_by: Nullable(
    Type.Object(
      { id: Uuid, name: Nullable(Type.String()), email: Nullable(Type.String()) },
      { description: 'the person who created the key in the dashboard; null for the admin API and the first start' },
    ),
  ),
  created_at: Timestamp,
});
