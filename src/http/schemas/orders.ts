import { Type } from '@sinclair/typebox';
import { ListOf, ListViewQuery, Nullable, PaginationQuery, ref, StringEnum, Timestamp, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';
import { RegistrationAnswer } from './questions.ts';
import { Ticket } from './tickets.ts';

const OrderStatus = StringEnum(['unpaid', 'placed', 'fulfilled', 'cancelled'] as const);

const OrderFields = {
  id: Uuid,
  object: Type.Literal('order'),
  order_no: Type.String({ description: 'human-readable, unique per organizer' }),
  status: OrderStatus,
  channel: Type.String({ description: '`box_office` for orders made through this API' }),
  buyer: Type.Object({
    first_name: Type.String(),
    last_name: Nullable(Type.String()),
    email: Type.String(),
    phone: Nullable(Type.String()),
  }),
  currency: Type.String(),
  total_minor: Type.Integer({ description: 'includes service fees, surcharges and taxes' }),
  etickets_sent_at: Nullable(Timestamp),
  disputed_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Type.Unsafe<Date | string>(
    Type.String({
      format: 'date-time',
      description:
        'when the order last changed (sale, settlement, e-tickets sent, refund, cancellation); a check-in or transfer moves only the ticket’s own `updated_at`. The sync cursor (docs/sync.md)',
    }),
  ),
};

export const Order = Type.Object(OrderFields, {
  $id: 'Order',
  description: 'An order, as listed (without its transactions and answers)',
  examples: [EXAMPLES.order],
});
export const OrderList = ListOf(Order, 'OrderList');

export const OrderTransaction = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('order_transaction'),
    transaction_no: Type.String(),
    event_id: Uuid,
    performance_id: Uuid,
    delivery_method: Type.String({ description: '`eticket`: tickets are e-mailed to the buyer' }),
    items_total_minor: Type.Integer(),
    surcharges_minor: Type.Integer(),
    taxes_minor: Type.Integer(),
    service_fees_minor: Type.Integer(),
    total_minor: Type.Integer(),
    items: Type.Optional(
      Type.Array(ref(Ticket), { description: 'present with expand[]=items, and on the 201 of POST /orders' }),
    ),
  },
  { $id: 'OrderTransaction', description: 'One performance’s part of an order, with its totals' },
);

export const OrderDetail = Type.Object(
  {
    ...OrderFields,
    transactions: Type.Array(ref(OrderTransaction)),
    registration_answers: Type.Array(ref(RegistrationAnswer)),
  },
  {
    $id: 'OrderDetail',
    description: 'An order with its transactions (and their tickets, when expanded) and registration answers',
    examples: [EXAMPLES.orderDetail],
  },
);

const Name = Type.String({ minLength: 1, maxLength: 100 });

export const CreateOrder = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          performance_id: Uuid,
          ticket_type_id: Uuid,
          quantity: Type.Integer({ minimum: 1, maximum: 50 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20 },
    ),
    buyer: Type.Object(
      {
        first_name: Name,
        last_name: Type.Optional(Name),
        email: Type.String({ format: 'email', maxLength: 254, description: 'receives the receipt and the e-tickets' }),
        phone: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
      },
      { additionalProperties: false },
    ),
    tender: StringEnum(['cash', 'pay_later', 'free'] as const),
    registration_answers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field_key: Type.String({ minLength: 1, maxLength: 64, description: 'the question slug' }),
            ticket_no: Type.Optional(
              Type.Union([Type.String({ minLength: 1, maxLength: 20 }), Type.Integer()], {
                description:
                  'the attendee: "1" is the first ticket of the order (items in request order, quantities expanded)',
              }),
            ),
            value: Type.Union([
              Type.String({ maxLength: 2000 }),
              Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }),
            ]),
          },
          { additionalProperties: false },
        ),
        { maxItems: 5000 },
      ),
    ),
  },
  { $id: 'CreateOrderRequest', additionalProperties: false, examples: [EXAMPLES.createOrder] },
);

export const ListOrdersQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(OrderStatus),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    event_id: Type.Optional(Uuid),
    performance_id: Type.Optional(Uuid),
    ...ListViewQuery,
  },
  { additionalProperties: false },
);

export const GetOrderQuery = Type.Object(
  { 'expand[]': Type.Optional(Type.Array(Type.Literal('items'))) },
  { additionalProperties: false },
);

export const SettleOrder = Type.Object(
  { tender: Type.Optional(StringEnum(['cash', 'card', 'bank_transfer'] as const, { default: 'cash' })) },
  { additionalProperties: false },
);

export const RefundOrder = Type.Object(
  {
    ticket_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
    mode: Type.Optional(StringEnum(['cash', 'card'] as const, { default: 'cash' })),
  },
  { additionalProperties: false },
);

export const Refund = Type.Object({
  id: Uuid,
  object: Type.Literal('refund'),
  order_id: Uuid,
  mode: Type.String(),
  status: Type.String(),
  amount_minor: Type.Integer(),
  currency: Type.String(),
  ticket_ids: Type.Array(Uuid),
  settled_at: Nullable(Timestamp),
  created_at: Timestamp,
});

export const SettleRefund = Type.Object(
  { status: StringEnum(['refunded', 'failed'] as const) },
  { additionalProperties: false },
);

export const Email = Type.Object({
  id: Uuid,
  object: Type.Literal('email'),
  order_id: Type.Union([Uuid, Type.Null()], { description: 'null for an account e-mail (an invitation)' }),
  kind: StringEnum(['receipt', 'etickets', 'invitation', 'password_reset'] as const, {
    description:
      'an order’s `receipt` or `etickets`, or a team `invitation`; a `password_reset` has no organizer and is in no organizer’s log',
  }),
  recipient: Type.String(),
  subject: Type.String(),
  status: Type.String({ description: '`pending`, `sending`, `sent`, `failed` or `skipped`' }),
  attempts: Type.Integer(),
  last_error: Nullable(Type.String()),
  notes: Nullable(
    Type.String({
      description:
        'what a sent mail left out and why, such as a wallet pass that could not be signed (docs/tickets.md); null when nothing was',
    }),
  ),
  next_attempt_at: Nullable(Timestamp),
  sent_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
