/**
 * Orders: search by buyer e-mail (exact, any case), status, event and performance (the
 * API's filters, docs/orders.md), newest first, 50 a page; and one order with its
 * transactions, tickets and answers, and what the role may do to it (settle, resend,
 * refund, cancel, transfer: ../components/order-actions.tsx).
 */
import { useCallback, useState } from 'preact/hooks';
import { useOutcomeFocus } from '../lib/outcome-focus.ts';
import type { Event as CatalogEvent, ListOrdersParams, Order, Performance } from '@marquee/sdk';
import { ErrorNotice } from '../components/error-notice.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { OrderActions } from '../components/order-actions.tsx';
import { TicketDocuments } from '../components/ticket-documents.tsx';
import { loadOrderContext, OrderView } from '../components/order-view.tsx';
import { dateTime, money } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

const STATUSES = ['unpaid', 'placed', 'fulfilled', 'cancelled'] as const;
const PAGE = 50;

export function OrdersList() {
  useTitle('Orders');
  const { client, organizer } = useSession();
  const [email, setEmail] = useState('');
  const [status, setStatus] = useState('');
  const [eventId, setEventId] = useState('');
  const [performanceId, setPerformanceId] = useState('');
  const [filters, setFilters] = useState<ListOrdersParams>({});
  const [more, setMore] = useState<Order[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>();

  const events = useAsync(async () => (await client.events.list({ limit: 100 })).data, [client]);
  const performances = useAsync(
    async (): Promise<Performance[]> =>
      eventId === '' ? [] : (await client.events.listPerformances(eventId, { limit: 100 })).data,
    [client, eventId],
  );
  const results = useAsync(async () => {
    const page = await client.orders.list({ ...filters, limit: PAGE });
    setMore([]);
    setHasMore(page.has_more);
    return page.data;
  }, [client, filters]);
  const orders = [...(results.data ?? []), ...more];
  const zone = organizer.timezone;

  const search = (e: Event) => {
    e.preventDefault();
    setFilters({
      ...(email.trim() !== '' ? { email: email.trim() } : {}),
      ...(status !== '' ? { status: status as Order['status'] } : {}),
      ...(eventId !== '' ? { event_id: eventId } : {}),
      ...(performanceId !== '' ? { performance_id: performanceId } : {}),
    });
  };
  const loadMore = async () => {
    try {
      const page = await client.orders.list({ ...filters, limit: PAGE, starting_after: orders.at(-1)!.id });
      setMore([...more, ...page.data]);
      setHasMore(page.has_more);
    } catch (err) {
      setMoreError(err);
    }
  };
  const eventName = (list: CatalogEvent[] | undefined, id: string) => list?.find((ev) => ev.id === id)?.title ?? id;

  return (
    <>
      <h1>Orders</h1>
      <form role="search" aria-label="Search orders" onSubmit={search}>
        <div class="row">
          <div class="field">
            <label for="orders-email">Buyer e-mail</label>
            <input id="orders-email" type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="orders-status">Status</label>
            <select id="orders-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="orders-event">Event</label>
            <select
              id="orders-event"
              value={eventId}
              onChange={(e) => {
                setEventId(e.currentTarget.value);
                setPerformanceId('');
              }}
            >
              <option value="">Any</option>
              {(events.data ?? []).map((ev) => (
                <option key={ev.id} value={ev.id}>
                  {ev.title}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="orders-performance">Performance</label>
            <select
              id="orders-performance"
              value={performanceId}
              disabled={eventId === ''}
              onChange={(e) => setPerformanceId(e.currentTarget.value)}
            >
              <option value="">Any</option>
              {(performances.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {dateTime(p.starts_at, events.data?.find((ev) => ev.id === eventId)?.timezone ?? zone)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Search</button>
        </div>
      </form>
      <ErrorNotice error={results.error ?? events.error} />
      <table>
        <caption class="visually-hidden">Orders, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Buyer</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Total
            </th>
            <th scope="col">Placed</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <tr key={order.id}>
              <td>
                <a href={`/app/orders/${order.id}`}>{order.order_no}</a>
              </td>
              <td>
                {order.buyer.first_name} {order.buyer.last_name ?? ''} · {order.buyer.email}
              </td>
              <td>{order.status}</td>
              <td class="num">{money(order.total_minor, order.currency)}</td>
              <td>{dateTime(order.created_at, zone)}</td>
            </tr>
          ))}
          {!results.loading && orders.length === 0 && (
            <tr>
              <td colSpan={5}>
                No order matches{filters.event_id ? ` for ${eventName(events.data, filters.event_id)}` : ''}.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <LoadMore hasMore={hasMore} error={moreError} onLoad={loadMore} />
    </>
  );
}

export function OrderDetailScreen({ id }: { id: string }) {
  const { client } = useSession();
  const load = useCallback(async () => {
    const order = await client.orders.get(id, { expand: ['items'] });
    return { order, context: await loadOrderContext(client, order) };
  }, [client, id]);
  const loaded = useAsync(load, [load]);
  // The order as it is after an action (read again before the action's line is shown).
  const [fresh, setFresh] = useState<Awaited<ReturnType<typeof load>> | undefined>();
  // What the last action did, or why it was refused; `n` counts the outcomes (each moves the
  // focus), `succeeded` the actions done (each starts the actions' choices and keys afresh).
  const [result, setResult] = useState<{ n: number; succeeded: number; done?: string; error?: unknown }>({
    n: 0,
    succeeded: 0,
  });
  const outcome = useOutcomeFocus(result, result.n > 0);
  const current = fresh?.order.id === id ? fresh : loaded.data;
  useTitle(current === undefined ? 'Order' : `Order ${current.order.order_no}`);
  if (loaded.error !== undefined) return <ErrorNotice error={loaded.error} />;
  if (current === undefined) return <p class="loading">Loading the order…</p>;
  return (
    <>
      <h1>Order {current.order.order_no}</h1>
      <div ref={outcome} tabIndex={-1} class="outcome">
        {result.done !== undefined && (
          <p class="notice ok" role="status">
            {result.done}
          </p>
        )}
        <ErrorNotice error={result.error} />
      </div>
      <OrderView order={current.order} context={current.context}>
        <OrderActions
          // A new state of the order starts the actions afresh (choices, keys).
          key={`${current.order.id} ${result.succeeded}`}
          order={current.order}
          context={current.context}
          onDone={async (message) => {
            setFresh(await load());
            setResult((r) => ({ n: r.n + 1, succeeded: r.succeeded + 1, done: message }));
          }}
          onError={(error) =>
            setResult((r) =>
              error === undefined ? { n: r.n, succeeded: r.succeeded } : { n: r.n + 1, succeeded: r.succeeded, error },
            )
          }
        />
      </OrderView>
      <TicketDocuments order={current.order} context={current.context} />
    </>
  );
}
