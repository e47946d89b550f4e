/**
 * Sell at the box office: pick a published event and a performance, then the sale form
 * (./sale-form.tsx); after the sale, the order with its totals and printable tickets.
 * `/app/sell?event=…&performance=…` opens with both chosen (the event screen links so).
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { Event, EventDetail, Performance, RegistrationQuestion } from '@marquee/sdk';
import { ErrorNotice } from '../components/error-notice.tsx';
import { OrderView, type OrderContext } from '../components/order-view.tsx';
import { SaleForm, type Sold } from '../components/sale-form.tsx';
import { EventSelect, PerformanceSelect } from '../components/performance-picker.tsx';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

/** How many events the picker lists at most (the newest on sale). */
const MAX_EVENTS = 500;

export interface Catalog {
  event: EventDetail;
  performances: Performance[];
  questions: RegistrationQuestion[];
}

export function Sell() {
  useTitle('Sell');
  const { client } = useSession();
  const { query } = useLocation();
  const [eventId, setEventId] = useState(query.event ?? '');
  const [performanceId, setPerformanceId] = useState(query.performance ?? '');
  const [sold, setSold] = useState<Sold | undefined>();
  const [round, setRound] = useState(0);

  const events = useAsync(async () => {
    const onSale: Event[] = [];
    let seen = 0;
    for await (const event of client.events.list({ limit: 100, status: 'published' })) {
      if (!event.is_archived) onSale.push(event);
      if (++seen >= MAX_EVENTS) break;
    }
    return onSale;
  }, [client]);

  const catalog = useAsync(async (): Promise<Catalog | undefined> => {
    if (eventId === '') return undefined;
    const questions: RegistrationQuestion[] = [];
    const [event, schedule] = await Promise.all([
      client.events.get(eventId),
      client.events.listPerformances(eventId, { limit: 100 }),
      (async () => {
        for await (const question of client.events.listQuestions(eventId, { limit: 100 })) questions.push(question);
      })(),
    ]);
    return { event, performances: schedule.data.filter((p) => p.status === 'published'), questions };
  }, [client, eventId]);

  if (sold !== undefined)
    return (
      <SaleDone
        sold={sold}
        onNext={() => {
          setSold(undefined);
          setRound(round + 1);
        }}
      />
    );

  const performance = catalog.data?.performances.find((p) => p.id === performanceId);
  return (
    <>
      <h1>Sell</h1>
      <ErrorNotice error={events.error ?? catalog.error} />
      <div class="row">
        <EventSelect
          id="sell-event"
          items={events.data ?? []}
          value={eventId}
          placeholder="Choose an event…"
          onChange={(id) => {
            setEventId(id);
            setPerformanceId('');
          }}
        />
        <PerformanceSelect
          id="sell-performance"
          items={catalog.data?.performances ?? []}
          timeZone={catalog.data?.event.timezone ?? 'UTC'}
          value={performanceId}
          disabled={catalog.data === undefined}
          placeholder="Choose a performance…"
          onChange={setPerformanceId}
        />
      </div>
      {catalog.data !== undefined && performance !== undefined && (
        <SaleForm
          key={`${performance.id}:${round}`}
          catalog={catalog.data}
          performance={performance}
          onSold={setSold}
        />
      )}
    </>
  );
}

function SaleDone({ sold, onNext }: { sold: Sold; onNext: () => void }) {
  useTitle(`Order ${sold.order.order_no}`);
  const context: OrderContext = sold.context;
  return (
    <>
      <div class="screen-head">
        <h1>Sold: order {sold.order.order_no}</h1>
        <div class="actions no-print">
          <button type="button" onClick={onNext}>
            New sale
          </button>
          <a class="button secondary" href={`/app/orders/${sold.order.id}`}>
            Open the order
          </a>
        </div>
      </div>
      <p class="notice ok no-print" role="status">
        The sale is recorded; the buyer gets the receipt and e-tickets by e-mail.
      </p>
      <OrderView order={sold.order} context={context} />
    </>
  );
}
