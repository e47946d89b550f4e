/** SQL for orders, their transactions, payments, refunds, contacts and the catalog reads a sale needs. */
import { sql, type Insertable, type Selectable } from 'kysely';
import { literal } from '../literals.ts';
import { PREPARED } from '../prepared.ts';
import type { Executor } from '../transaction.ts';
import type { EmailJobsTable, PaymentsTable, RefundsTable } from '../schema.ts';
import type { TicketRow } from './tickets.ts';
import { domainEventCtes, type NewDomainEvent } from './domain-events.ts';

/** A timestamp column as milliseconds since 1970, exact, as a JSON number. */
const EPOCH_MS = (column: string) => sql.raw(`(extract(epoch FROM ${column}) * 1000)::bigint`);

export type OrderRow = Awaited<ReturnType<typeof findOrder>> & {};
export type OrderTransactionRow = Awaited<ReturnType<typeof findTransactionsOfOrders>>[number];
export type RefundRow = Selectable<RefundsTable>;

/** What a sale reads before it writes (findSaleCatalog): one row per (performance, active price). */
interface SaleCatalogRow {
  currency: string;
  box_office_fee_minor: number;
  tax_rate_bps: number;
  performance_id: string | null;
  event_id: string | null;
  status: string | null;
  box_office_sales_enabled: boolean | null;
  event_status: string | null;
  ticket_type_id: string | null;
  price_minor: number | null;
  ticket_type_name: string | null;
  /** The type's display order and what remains (inventory_remaining(), unlocked): null without a price. */
  sort_order: number | null;
  performance_remaining: number | null;
  type_remaining: number | null;
  has_questions: boolean;
}

/**
 * Everything a sale reads before it writes, in ONE query: the organizer's pricing settings,
 * the requested performances of this organizer (with their event and what decides whether
 * the box office may sell them), their active prices with the ticket type's name, and
 * whether the performance's event has registration questions, and what remains of each
 * price: the counts of inventory_remaining() (the availability endpoint's query, joined in
 * so an accepted order pays no extra round trip for them; read without a lock, on this
 * statement's snapshot, so a sale can refuse early without writing). One row per (performance,
 * active price); a performance without active prices gives one row with null price
 * columns; an organizer without any of the performances gives one row with null
 * performance columns. No row: no such organizer. A prepared statement (one text for any
 * number of performances).
 */
export async function findSaleCatalog(
  db: Executor,
  organizerId: string,
  performanceIds: string[],
  now: Date,
): Promise<SaleCatalogRow[]> {
  const result = await sql<SaleCatalogRow>`${PREPARED}
    SELECT o.currency, o.box_office_fee_minor, o.tax_rate_bps,
           p.id AS performance_id, p.event_id, p.status, p.box_office_sales_enabled, e.status AS event_status,
           pr.ticket_type_id, pr.price_minor, tt.name AS ticket_type_name,
           tt.sort_order, ir.performance_remaining, ir.type_remaining,
           EXISTS (SELECT 1 FROM registration_questions q WHERE q.event_id = p.event_id AND q.organizer_id = o.id) AS has_questions
    FROM organizers o
    LEFT JOIN performances p ON p.organizer_id = o.id AND p.id = ANY (${performanceIds}::uuid[])
    LEFT JOIN events e ON e.id = p.event_id
    LEFT JOIN prices pr ON pr.performance_id = p.id AND pr.organizer_id = o.id AND pr.is_active
    LEFT JOIN ticket_types tt ON tt.id = pr.ticket_type_id
    LEFT JOIN inventory_remaining(${performanceIds}::uuid[], ${now}::timestamptz) ir
      ON ir.performance_id = p.id AND ir.ticket_type_id = pr.ticket_type_id
    WHERE o.id = ${organizerId}::uuid
  `.execute(db);
  return result.rows;
}

/** A new order: every column but those only later changes set (they start null). */
export type NewOrder = Omit<OrderRow, 'etickets_sent_at' | 'disputed_at' | 'cancelled_at'>;
/** A new ticket: every column but those only check-in, transfer and refund set (they start null). */
type NewTicket = Omit<TicketRow, 'checked_in_at' | 'checked_in_device_id' | 'transferred_at' | 'refund_id'>;
type NewPayment = Omit<Selectable<PaymentsTable>, 'id'>;
type NewEmailJob = Pick<
  Selectable<EmailJobsTable>,
  | 'organizer_id'
  | 'order_id'
  | 'kind'
  | 'recipient'
  | 'subject'
  | 'max_attempts'
  | 'next_attempt_at'
  | 'created_at'
  | 'updated_at'
>;

export interface NewSale {
  order: NewOrder;
  /** Every column given (ids included), so these are the rows as stored. */
  transactions: OrderTransactionRow[];
  tickets: NewTicket[];
  payment: NewPayment | null;
  emailJobs: NewEmailJob[];
  contact: ContactInput;
  /** The sale's domain event (order.created), written with it. */
  event: NewDomainEvent;
}

/**
 * Sales' records in ONE statement (a prepared one: the rows travel as arrays, so the text
 * is the same for any number of sales, transactions, tickets and e-mail jobs): each order
 * unless its order_no is taken for the organizer, and only for the orders that went in,
 * their transactions, tickets, payments and e-mail jobs (data-modifying CTEs; foreign keys
 * are checked at the end of the statement, when all are in), the CRM contacts (one per
 * organizer and lower(email): a new buyer is inserted, a repeat buyer's details refresh
 * and its orders_count grows by its orders here), and each sale's domain event with its
 * webhook fan-out (domainEventCtes), which saves a round trip.
 *
 * A lone sale is the one-element case; concurrent sales judged together are written by
 * one call (src/domain/orders/sales-together.ts). Every stored column is given by the
 * caller (ids included) or starts null, so the rows returned are built from the input,
 * not read back. A sale whose order_no was taken wrote nothing (undefined in its place;
 * the caller retries with another number).
 */
export async function insertSale(db: Executor, sale: NewSale): Promise<InsertedSale | undefined> {
  return salesInserted([sale], (await salesInsertStatement([sale]).execute(db)).rows).sales[0];
}

/** A sale's rows as stored. */
export interface InsertedSale {
  order: OrderRow;
  tickets: TicketRow[];
}

interface SalesInsertAnswer {
  /** The ids of the orders that went in. */
  inserted: string[];
  queued: number;
  stamps: Record<string, [number, number]> | null;
}

/** SQL that holds once the order `orderId` is written: the condition of a statement sent before that is known. */
export function orderWritten(orderId: string): string {
  return `EXISTS (SELECT 1 FROM orders WHERE id = ${literal(orderId)}::uuid)`;
}

/** insertSale's statement for any number of sales, to run or to send ahead in a pipeline (src/db/transaction.ts). */
// eslint-disable-next-line max-lines-per-function -- one SQL statement (a CTE per table), kept whole so sales stay one round trip
export function salesInsertStatement(sales: NewSale[]) {
  const o = sales.map((sale) => sale.order);
  const tx = sales.flatMap((sale) => sale.transactions);
  const t = sales.flatMap((sale) => sale.tickets);
  const payments = sales.flatMap((sale) => (sale.payment ? [sale.payment] : []));
  const ej = sales.flatMap((sale) => sale.emailJobs);
  const c = sales.map((sale) => sale.contact);
  const written = sql`SELECT id FROM new_order`;
  return sql<SalesInsertAnswer>`${PREPARED}
    WITH new_order AS (
      INSERT INTO orders (id, organizer_id, order_no, status, channel, tender, buyer_first_name, buyer_last_name, buyer_email,
                          buyer_phone, currency, total_minor, paid_at, created_at, updated_at)
      SELECT r.* FROM unnest(
        ${o.map((r) => r.id)}::uuid[], ${o.map((r) => r.organizer_id)}::uuid[], ${o.map((r) => r.order_no)}::text[],
        ${o.map((r) => r.status)}::text[], ${o.map((r) => r.channel)}::text[], ${o.map((r) => r.tender)}::text[],
        ${o.map((r) => r.buyer_first_name)}::text[], ${o.map((r) => r.buyer_last_name)}::text[], ${o.map((r) => r.buyer_email)}::text[],
        ${o.map((r) => r.buyer_phone)}::text[], ${o.map((r) => r.currency)}::text[], ${o.map((r) => r.total_minor)}::bigint[],
        ${o.map((r) => r.paid_at)}::timestamptz[], ${o.map((r) => r.created_at)}::timestamptz[],
        ${o.map((r) => r.updated_at)}::timestamptz[]) AS r
      ON CONFLICT (organizer_id, order_no) DO NOTHING
      RETURNING id, id AS order_id, created_at, updated_at
    ),
    new_transactions AS (
      INSERT INTO order_transactions (id, organizer_id, order_id, transaction_no, position, event_id, performance_id, delivery_method,
                                      items_total_minor, surcharges_minor, taxes_minor, service_fees_minor, total_minor, created_at)
      SELECT r.* FROM unnest(
        ${tx.map((r) => r.id)}::uuid[], ${tx.map((r) => r.organizer_id)}::uuid[], ${tx.map((r) => r.order_id)}::uuid[],
        ${tx.map((r) => r.transaction_no)}::text[], ${tx.map((r) => r.position)}::int[], ${tx.map((r) => r.event_id)}::uuid[],
        ${tx.map((r) => r.performance_id)}::uuid[], ${tx.map((r) => r.delivery_method)}::text[],
        ${tx.map((r) => r.items_total_minor)}::bigint[], ${tx.map((r) => r.surcharges_minor)}::bigint[],
        ${tx.map((r) => r.taxes_minor)}::bigint[], ${tx.map((r) => r.service_fees_minor)}::bigint[],
        ${tx.map((r) => r.total_minor)}::bigint[], ${tx.map((r) => r.created_at)}::timestamptz[]) AS r(id, organizer_id, order_id, transaction_no, position, event_id, performance_id, delivery_method, items_total_minor, surcharges_minor, taxes_minor, service_fees_minor, total_minor, created_at)
      WHERE r.order_id IN (${written})
    ),
    new_tickets AS (
      INSERT INTO tickets (id, organizer_id, order_id, order_transaction_id, order_no, position, ticket_no, serial_no, status,
                           event_id, performance_id, ticket_type_id, holder_first_name, holder_last_name, holder_email,
                           unit_price_minor, fee_minor, tax_minor, total_minor, created_at, updated_at)
      SELECT r.* FROM unnest(
        ${t.map((r) => r.id)}::uuid[], ${t.map((r) => r.organizer_id)}::uuid[], ${t.map((r) => r.order_id)}::uuid[],
        ${t.map((r) => r.order_transaction_id)}::uuid[], ${t.map((r) => r.order_no)}::text[], ${t.map((r) => r.position)}::int[],
        ${t.map((r) => r.ticket_no)}::text[], ${t.map((r) => r.serial_no)}::text[], ${t.map((r) => r.status)}::text[],
        ${t.map((r) => r.event_id)}::uuid[], ${t.map((r) => r.performance_id)}::uuid[], ${t.map((r) => r.ticket_type_id)}::uuid[],
        ${t.map((r) => r.holder_first_name)}::text[], ${t.map((r) => r.holder_last_name)}::text[], ${t.map((r) => r.holder_email)}::text[],
        ${t.map((r) => r.unit_price_minor)}::bigint[], ${t.map((r) => r.fee_minor)}::bigint[], ${t.map((r) => r.tax_minor)}::bigint[],
        ${t.map((r) => r.total_minor)}::bigint[], ${t.map((r) => r.created_at)}::timestamptz[], ${t.map((r) => r.updated_at)}::timestamptz[]) AS r(id, organizer_id, order_id, order_transaction_id, order_no, position, ticket_no, serial_no, status, event_id, performance_id, ticket_type_id, holder_first_name, holder_last_name, holder_email, unit_price_minor, fee_minor, tax_minor, total_minor, created_at, updated_at)
      WHERE r.order_id IN (${written})
      RETURNING id, order_id, created_at, updated_at
    ),
    new_payments AS (
      INSERT INTO payments (organizer_id, order_id, tender, amount_minor, currency, created_at)
      SELECT r.* FROM unnest(
        ${payments.map((r) => r.organizer_id)}::uuid[], ${payments.map((r) => r.order_id)}::uuid[], ${payments.map((r) => r.tender)}::text[],
        ${payments.map((r) => r.amount_minor)}::bigint[], ${payments.map((r) => r.currency)}::text[],
        ${payments.map((r) => r.created_at)}::timestamptz[]) AS r(organizer_id, order_id, tender, amount_minor, currency, created_at)
      WHERE r.order_id IN (${written})
    ),
    new_email_jobs AS (
      INSERT INTO email_jobs (organizer_id, order_id, kind, recipient, subject, max_attempts, next_attempt_at, created_at, updated_at)
      SELECT r.* FROM unnest(
        ${ej.map((r) => r.organizer_id)}::uuid[], ${ej.map((r) => r.order_id)}::uuid[], ${ej.map((r) => r.kind)}::text[],
        ${ej.map((r) => r.recipient)}::text[], ${ej.map((r) => r.subject)}::text[], ${ej.map((r) => r.max_attempts)}::int[],
        ${ej.map((r) => r.next_attempt_at)}::timestamptz[], ${ej.map((r) => r.created_at)}::timestamptz[],
        ${ej.map((r) => r.updated_at)}::timestamptz[]) AS r(organizer_id, order_id, kind, recipient, subject, max_attempts, next_attempt_at, created_at, updated_at)
      WHERE r.order_id IN (${written})
    ),
    contact AS (
      INSERT INTO contacts (organizer_id, email, first_name, last_name, phone, orders_count, first_order_at, last_order_at, created_at, updated_at)
      SELECT r.organizer_id, (array_agg(r.email ORDER BY r.n DESC))[1], (array_agg(r.first_name ORDER BY r.n DESC))[1],
             (array_agg(r.last_name ORDER BY r.n DESC) FILTER (WHERE r.last_name IS NOT NULL))[1],
             (array_agg(r.phone ORDER BY r.n DESC) FILTER (WHERE r.phone IS NOT NULL))[1],
             count(*), min(r.at), max(r.at), min(r.at), max(r.at)
      FROM unnest(
        ${c.map((r) => r.organizerId)}::uuid[], ${c.map((r) => r.email)}::text[], ${c.map((r) => r.firstName)}::text[],
        ${c.map((r) => r.lastName)}::text[], ${c.map((r) => r.phone)}::text[], ${c.map((r) => r.at)}::timestamptz[],
        ${o.map((r) => r.id)}::uuid[]) WITH ORDINALITY AS r(organizer_id, email, first_name, last_name, phone, at, order_id, n)
      WHERE r.order_id IN (${written})
      GROUP BY r.organizer_id, lower(r.email)
      -- One order of locking for every statement: two that share buyers never wait in a cycle.
      ORDER BY r.organizer_id, lower(r.email)
      ON CONFLICT (organizer_id, lower(email)) DO UPDATE SET
        email = EXCLUDED.email,
        first_name = EXCLUDED.first_name,
        last_name = coalesce(EXCLUDED.last_name, contacts.last_name),
        phone = coalesce(EXCLUDED.phone, contacts.phone),
        orders_count = contacts.orders_count + EXCLUDED.orders_count,
        last_order_at = greatest(contacts.last_order_at, EXCLUDED.last_order_at),
        updated_at = EXCLUDED.updated_at
    ),
    ${domainEventCtes(
      sales.map((sale) => ({ ...sale.event, key: sale.order.id })),
      written,
    )}
    SELECT (SELECT coalesce(json_agg(id), '[]') FROM new_order) AS inserted, (SELECT count(*) FROM queued)::int AS queued,
           (SELECT json_object_agg(s.id, json_build_array(${EPOCH_MS('s.created_at')}, ${EPOCH_MS('s.updated_at')}))
            FROM (SELECT * FROM new_order UNION ALL SELECT * FROM new_tickets) s
            JOIN unnest(${o.map((r) => r.id)}::uuid[], ${o.map((r) => r.created_at)}::timestamptz[], ${o.map((r) => r.updated_at)}::timestamptz[])
              AS given(order_id, created_at, updated_at) ON given.order_id = s.order_id
            WHERE s.created_at <> given.created_at OR s.updated_at <> given.updated_at) AS stamps
  `;
}

/**
 * What salesInsertStatement's answer says of each sale (its rows as stored, or undefined
 * when its order_no was taken), and how many webhook deliveries the statement queued.
 */
export function salesInserted(
  sales: NewSale[],
  answer: SalesInsertAnswer[],
): { sales: Array<InsertedSale | undefined>; queuedDeliveries: number } {
  const row = answer[0];
  const inserted = new Set(row?.inserted ?? []);
  // The stamps as stored: the sync trigger may raise them (docs/sync.md). A sale stamps
  // every row with its order's instants, so only rows stored with other stamps come back.
  const stampedAs =
    (o: NewOrder) =>
    <R extends { id: string; created_at: Date; updated_at: Date }>(r: R): R => {
      const [created, updated] = row?.stamps?.[r.id] ?? [o.created_at.getTime(), o.updated_at.getTime()];
      return { ...r, created_at: new Date(created), updated_at: new Date(updated) };
    };
  return {
    queuedDeliveries: row?.queued ?? 0,
    sales: sales.map(({ order: o, tickets: t }) => {
      if (!inserted.has(o.id)) return undefined;
      const stamped = stampedAs(o);
      return {
        order: stamped({ ...o, etickets_sent_at: null, disputed_at: null, cancelled_at: null }),
        tickets: t.map((ticket) =>
          stamped({
            ...ticket,
            checked_in_at: null,
            checked_in_device_id: null,
            transferred_at: null,
            refund_id: null,
          }),
        ),
      };
    }),
  };
}

export function insertPayment(db: Executor, values: Insertable<PaymentsTable>) {
  return db.insertInto('payments').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findOrder(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/** Locks the order row for a state change (settle, refund, cancel). */
export function lockOrder(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .forUpdate()
    .executeTakeFirst();
}

/** The organizer an order belongs to (admin routes address orders by id alone). */
export async function findOrderOrganizer(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('organizer_id').where('id', '=', id).executeTakeFirst();
  return row?.organizer_id;
}

export function updateOrderStatus(
  db: Executor,
  id: string,
  values: { status: OrderRow['status']; paid_at?: Date; cancelled_at?: Date; updated_at: Date },
) {
  return db.updateTable('orders').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function findTransactionsOfOrders(db: Executor, orderIds: string[]) {
  return db
    .selectFrom('order_transactions')
    .selectAll()
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

export interface OrderFilters {
  status?: OrderRow['status'];
  email?: string;
  event_id?: string;
  performance_id?: string;
}

/** The base query of GET /v1/orders; keysetPage adds the order and the cursor. */
export function ordersListQuery(db: Executor, organizerId: string, filters: OrderFilters) {
  let q = db.selectFrom('orders').selectAll('orders').where('orders.organizer_id', '=', organizerId);
  if (filters.status !== undefined) q = q.where('orders.status', '=', filters.status);
  if (filters.email !== undefined) q = q.where(sql`lower(orders.buyer_email)`, '=', filters.email.toLowerCase());
  if (filters.event_id !== undefined) {
    const eventId = filters.event_id;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('order_transactions as ot')
          .select(sql`1`.as('one'))
          .whereRef('ot.order_id', '=', 'orders.id')
          .where('ot.event_id', '=', eventId),
      ),
    );
  }
  if (filters.performance_id !== undefined) {
    const performanceId = filters.performance_id;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('order_transactions as ot')
          .select(sql`1`.as('one'))
          .whereRef('ot.order_id', '=', 'orders.id')
          .where('ot.performance_id', '=', performanceId),
      ),
    );
  }
  return q;
}

export function insertRefund(db: Executor, values: Insertable<RefundsTable>) {
  return db.insertInto('refunds').values(values).returningAll().executeTakeFirstOrThrow();
}

export function lockRefund(db: Executor, id: string) {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function settleRefundRow(db: Executor, id: string, status: 'refunded' | 'failed', now: Date) {
  return db
    .updateTable('refunds')
    .set({ status, settled_at: now, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

interface ContactInput {
  organizerId: string;
  email: string;
  firstName: string;
  lastName: string | null;
  phone: string | null;
  at: Date;
}

/** Any order by id, across organizers (background jobs that hold the id). */
export function findOrderById(db: Executor, id: string) {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Marks a change of the order's tickets on the order itself. */
export async function touchOrder(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable('orders').set({ updated_at: now }).where('id', '=', id).execute();
}

/**
 * The e-tickets went out for the first time: stamps the order, and a `placed` order
 * becomes `fulfilled`. Undefined when they had gone out before (a resend): the order keeps
 * its first time. Conditional on the stamp, so of two deliveries at once one is the first.
 */
export function markEticketsSent(db: Executor, id: string, sentAt: Date) {
  return db
    .updateTable('orders')
    .set((eb) => ({
      etickets_sent_at: sentAt,
      status: eb
        .case()
        .when('status', '=', 'placed')
        .then('fulfilled' as const)
        .else(eb.ref('status'))
        .end(),
      updated_at: sentAt,
    }))
    .where('id', '=', id)
    .where('etickets_sent_at', 'is', null)
    .returning(['id', 'order_no'])
    .executeTakeFirst();
}
