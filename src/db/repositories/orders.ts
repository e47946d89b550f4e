/** SQL for orders, their transactions, payments, refunds, contacts and the catalog reads a sale needs. */
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { OrderTransactionsTable, OrdersTable, PaymentsTable, RefundsTable } from '../schema.ts';

export type OrderRow = Awaited<ReturnType<typeof findOrder>> & {};
export type OrderTransactionRow = Awaited<ReturnType<typeof findTransactionsOfOrders>>[number];
export type RefundRow = Awaited<ReturnType<typeof findRefund>> & {};

/** The performances of a sale with what decides whether the box office may sell them. */
export function findPerformancesForSale(db: Executor, organizerId: string, performanceIds: string[]) {
  return db
    .selectFrom('performances as p')
    .innerJoin('events as e', 'e.id', 'p.event_id')
    .select(['p.id', 'p.event_id', 'p.status', 'p.box_office_sales_enabled', 'p.starts_at', 'e.title as event_title', 'e.status as event_status'])
    .where('p.organizer_id', '=', organizerId)
    .where('p.id', 'in', performanceIds)
    .execute();
}

/** Active prices on the given performances, with the ticket type's name. */
export function findActivePrices(db: Executor, organizerId: string, performanceIds: string[]) {
  return db
    .selectFrom('prices as pr')
    .innerJoin('ticket_types as tt', 'tt.id', 'pr.ticket_type_id')
    .select(['pr.performance_id', 'pr.ticket_type_id', 'pr.price_minor', 'tt.name as ticket_type_name'])
    .where('pr.organizer_id', '=', organizerId)
    .where('pr.performance_id', 'in', performanceIds)
    .where('pr.is_active', '=', true)
    .execute();
}

/** Inserts an order unless its order_no is taken for the organizer; undefined on collision. */
export function insertOrderUnlessNumberTaken(db: Executor, values: Insertable<OrdersTable>) {
  return db
    .insertInto('orders')
    .values(values)
    .onConflict((oc) => oc.columns(['organizer_id', 'order_no']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function insertTransactions(db: Executor, values: Insertable<OrderTransactionsTable>[]) {
  return db.insertInto('order_transactions').values(values).returningAll().execute();
}

export function insertPayment(db: Executor, values: Insertable<PaymentsTable>) {
  return db.insertInto('payments').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findOrder(db: Executor, organizerId: string, id: string) {
  return db.selectFrom('orders').selectAll().where('id', '=', id).where('organizer_id', '=', organizerId).executeTakeFirst();
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
  return db.selectFrom('order_transactions').selectAll().where('order_id', 'in', orderIds).orderBy('order_id').orderBy('position').execute();
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
    q = q.where((eb) => eb.exists(eb.selectFrom('order_transactions as ot').select(sql`1`.as('one')).whereRef('ot.order_id', '=', 'orders.id').where('ot.event_id', '=', eventId)));
  }
  if (filters.performance_id !== undefined) {
    const performanceId = filters.performance_id;
    q = q.where((eb) => eb.exists(eb.selectFrom('order_transactions as ot').select(sql`1`.as('one')).whereRef('ot.order_id', '=', 'orders.id').where('ot.performance_id', '=', performanceId)));
  }
  return q;
}

export function insertRefund(db: Executor, values: Insertable<RefundsTable>) {
  return db.insertInto('refunds').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findRefund(db: Executor, id: string) {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

export function lockRefund(db: Executor, id: string) {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function settleRefundRow(db: Executor, id: string, status: 'refunded' | 'failed', now: Date) {
  return db.updateTable('refunds').set({ status, settled_at: now, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The CRM: one contact per organizer and lower(email); a repeat buyer's details refresh. */
export async function upsertContact(
  db: Executor,
  c: { organizerId: string; email: string; firstName: string; lastName: string | null; phone: string | null; at: Date },
): Promise<void> {
  await sql`
    INSERT INTO contacts (organizer_id, email, first_name, last_name, phone, orders_count, first_order_at, last_order_at, created_at, updated_at)
    VALUES (${c.organizerId}, ${c.email}, ${c.firstName}, ${c.lastName}, ${c.phone}, 1, ${c.at}, ${c.at}, ${c.at}, ${c.at})
    ON CONFLICT (organizer_id, lower(email)) DO UPDATE SET
      email = EXCLUDED.email,
      first_name = EXCLUDED.first_name,
      last_name = coalesce(EXCLUDED.last_name, contacts.last_name),
      phone = coalesce(EXCLUDED.phone, contacts.phone),
      orders_count = contacts.orders_count + 1,
      last_order_at = greatest(contacts.last_order_at, EXCLUDED.last_order_at),
      updated_at = EXCLUDED.updated_at
  `.execute(db);
}
