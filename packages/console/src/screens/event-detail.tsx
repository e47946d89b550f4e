/**
 * One event: its facts, its performances with what remains per ticket type (refreshed
 * every 5 s while the page is visible), and, for a role with `catalog`, publish, archive
 * and restore in the header (../components/event-actions.tsx) and the edit form (title,
 * description, contact e-mail), and the language of its buyers' documents
 * (../components/ticket-language.tsx).
 */
import { useState } from 'preact/hooks';
import type { EventDetail, Performance } from '@marquee/sdk';
import { AddPerformances } from '../components/add-performances.tsx';
import { AddTicketTypes } from '../components/add-ticket-types.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { EventActions } from '../components/event-actions.tsx';
import { EventEditForm } from '../components/event-edit-form.tsx';
import { HoldsPanel } from '../components/holds-panel.tsx';
import { QuestionEditor } from '../components/question-editor.tsx';
import { TicketLanguage } from '../components/ticket-language.tsx';
import { useAvailability } from '../lib/availability.ts';
import { dateTime, money } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';
import { EventState } from './events-list.tsx';
import { NumCol } from '../components/table-headers.tsx';

export function EventDetailScreen({ id }: { id: string }) {
  const { client, can, organizer } = useSession();
  const loaded = useAsync(async () => {
    const [event, schedule] = await Promise.all([
      client.events.get(id),
      client.events.listPerformances(id, { limit: 100 }),
    ]);
    return { event, performances: schedule.data };
  }, [client, id]);
  const [event, setEvent] = useState<EventDetail | undefined>();
  const current = event?.id === id ? event : loaded.data?.event;
  useTitle(current?.title ?? 'Event');
  // Performances or ticket types added: the event as answered, and its schedule read again.
  const catalogChanged = (changed: EventDetail) => {
    setEvent(changed);
    loaded.reload();
  };

  if (loaded.error !== undefined) return <ErrorNotice error={loaded.error} />;
  if (current === undefined || loaded.data === undefined) return <p class="loading">Loading the event…</p>;
  return (
    <>
      <div class="screen-head">
        <h1>{current.title}</h1>
        {/* A draft's performances are drafts until it is published (docs/catalog.md). */}
        <EventState event={current} draft={loaded.data.performances.every((p) => p.status === 'draft')} />
      </div>
      <EventActions
        event={current}
        performances={loaded.data.performances}
        onChanged={(changed) => {
          setEvent(changed);
          loaded.reload();
        }}
      />
      <dl class="facts">
        <dt>Time zone</dt>
        <dd>{current.timezone} (times on this page are in this zone)</dd>
        <dt>Contact e-mail</dt>
        <dd>{current.contact_email ?? '—'}</dd>
        <dt>Created</dt>
        <dd>{dateTime(current.created_at, current.timezone)}</dd>
        <dt>Sales</dt>
        <dd>
          <a href={`/app/events/${current.id}/report`}>Sales report</a>
        </dd>
      </dl>
      {current.description !== null && (
        // Sanitized by the API with an allow-list (docs/catalog.md); the page's CSP runs no inline script either.
        <div class="description" dangerouslySetInnerHTML={{ __html: current.description }} />
      )}
      <Schedule
        // New ticket types: the schedule and its availability are read anew.
        key={current.ticket_types.map((t) => t.id).join()}
        event={current}
        performances={loaded.data.performances}
        currency={organizer.currency}
      />
      {can('catalog') && <EventEditForm event={current} onSaved={setEvent} />}
      {can('read') && <TicketLanguage eventId={current.id} />}
      {can('catalog') && <AddPerformances event={current} onAdded={catalogChanged} />}
      {can('catalog') && <AddTicketTypes event={current} currency={organizer.currency} onAdded={catalogChanged} />}
      <QuestionEditor event={current} />
      <HoldsPanel event={current} performances={loaded.data.performances} />
    </>
  );
}

function Schedule({
  event,
  performances,
  currency,
}: {
  event: EventDetail;
  performances: Performance[];
  currency: string;
}) {
  const { client, can } = useSession();
  const live = useAvailability(
    client,
    performances.map((p) => p.id),
  );
  return (
    <section aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Performances and availability</h2>
      <p class="hint" aria-live="polite">
        {live.refreshedAt === undefined
          ? 'Loading availability…'
          : `Remaining tickets, refreshed every 5 seconds (last at ${live.refreshedAt.toLocaleTimeString()}).`}
      </p>
      <ErrorNotice error={live.error} />
      {performances.map((performance) => {
        const availability = live.byPerformance[performance.id];
        return (
          <table key={performance.id} aria-label={`Performance of ${dateTime(performance.starts_at, event.timezone)}`}>
            <caption>
              {dateTime(performance.starts_at, event.timezone)}
              {performance.title !== null ? ` · ${performance.title}` : ''} · {performance.status} · capacity{' '}
              {performance.capacity} · remaining{' '}
              <span data-testid="performance-remaining">{availability?.performance_remaining ?? '…'}</span>
              {can('sell') && performance.status === 'published' && !event.is_archived && (
                <>
                  {' '}
                  · <a href={`/app/sell?event=${event.id}&performance=${performance.id}`}>Sell</a>
                </>
              )}
            </caption>
            <thead>
              <tr>
                <th scope="col">Ticket type</th>
                <NumCol>Price</NumCol>
                <NumCol>Remaining</NumCol>
              </tr>
            </thead>
            <tbody>
              {event.ticket_types.map((type) => {
                const price = type.prices.find((p) => p.performance_id === performance.id);
                const remaining = availability?.ticket_types.find((t) => t.ticket_type_id === type.id)?.remaining;
                return (
                  <tr key={type.id}>
                    <th scope="row">{type.name}</th>
                    <td class="num">{price === undefined ? '—' : money(price.price_minor, currency)}</td>
                    <td class="num">
                      {availability === undefined ? '…' : remaining === undefined ? 'Not on sale' : remaining}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        );
      })}
    </section>
  );
}
