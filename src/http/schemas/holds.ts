/** Admin holds: storefront cart holds (expire) and organizer hold allocations (no expiry). */
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, TimestampInput, Uuid } from './common.ts';

/** A plain string enum, so a wrong value answers "must be one of: cart, allocation". */
const HoldKind = Type.Unsafe<'cart' | 'allocation'>({ type: 'string', enum: ['cart', 'allocation'] });

export const CreateHold = Type.Object(
  {
    kind: HoldKind,
    quantity: Type.Integer({ minimum: 1, maximum: 1000000 }),
    ticket_type_id: Type.Optional(Nullable(Uuid)),
    expires_at: Type.Optional(Nullable(TimestampInput)),
  },
  { additionalProperties: false },
);

export const Hold = Type.Object({
  id: Uuid,
  object: Type.Literal('hold'),
  performance_id: Uuid,
  ticket_type_id: Nullable(Uuid),
  kind: HoldKind,
  quantity: Type.Integer(),
  expires_at: Nullable(Timestamp),
  released_at: Nullable(Timestamp),
  created_at: Timestamp,
});
