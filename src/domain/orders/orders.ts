/** Reads of orders (GET /v1/orders, GET /v1/orders/{id}). */
import { findOrder, ordersListQuery, type OrderFilters } from '../../db/repositories/orders.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/domain-error.ts';
import { loadOrderDetail } from './detail.ts';

export async function getOrder(db: Executor, organizerId: string, id: string, opts: { items: boolean }) {
  const order = await findOrder(db, organizerId, id);
  if (!order) throw notFound('Order');
  return loadOrderDetail(db, order, opts);
}

export async function listOrders(db: Executor, organizerId: string, filters: OrderFilters, page: PageRequest) {
  return keysetPage(db, ordersListQuery(db, organizerId, filters), page, {
    table: 'orders',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
}
