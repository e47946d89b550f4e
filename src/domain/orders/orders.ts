/** Reads of orders (GET /v1/orders, GET /v1/orders/{id}). */
import { findOrder, ordersListQuery, type OrderFilters } from '../../db/repositories/orders.ts';
import type { PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/domain-error.ts';
import { listInView, type ListView } from '../sync/lists.ts';
import { loadOrderDetail } from './detail.ts';

export async function getOrder(db: Executor, organizerId: string, id: string, opts: { items: boolean }) {
  const order = await findOrder(db, organizerId, id);
  if (!order) throw notFound('Order');
  return loadOrderDetail(db, order, opts);
}

export async function listOrders(
  db: Executor,
  organizerId: string,
  filters: OrderFilters,
  page: PageRequest,
  view: ListView,
) {
  return listInView(db, 'orders', organizerId, ordersListQuery(db, organizerId, filters), page, view);
}
