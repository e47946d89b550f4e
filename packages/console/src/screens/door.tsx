/**
 * `/app/door`: checking tickets in at the door (docs/door.md). First the performance
 * (event, then one of its performances), then the door itself (door/door-panel.tsx).
 * The route needs the `check_in` permission (routes.tsx); the lookups it makes are open to it.
 */
import { useState } from 'preact/hooks';
import type { EventDetail, Performance } from '@marquee/sdk';
import { ErrorNotice } from '../components/error-notice.tsx';
import { DoorPanel } from '../door/door-panel.tsx';
import { EventSelect, PerformanceSelect } from '../components/performance-picker.tsx';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

const PAGE = 100;

export function Door() {
  useTitle('Door');
  const { client } = useSession();
  const [eventId, setEventId] = useState('');
  const [performanceId, setPerformanceId] = useState('');
  const [started, setStarted] = useState<{
    event: EventDetail;
    performances: Performance[];
    performance: Performance;
  }>();

  const events = useAsync(
    async () => (await client.events.list({ limit: PAGE })).data.filter((e) => !e.is_archived),
    [client],
  );
  const schedule = useAsync(async () => {
    if (eventId === '') return undefined;
    const [event, performances] = await Promise.all([
      client.events.get(eventId),
      client.events.listPerformances(eventId, { limit: PAGE }),
    ]);
    return { event, performances: performances.data };
  }, [client, eventId]);

  if (started)
    return (
      <DoorPanel
        event={started.event}
        performances={started.performances}
        performance={started.performance}
        onLeave={() => setStarted(undefined)}
      />
    );

  const timeZone = schedule.data?.event.timezone ?? 'UTC';
  const open = () => {
    const chosen = schedule.data?.performances.find((p) => p.id === performanceId);
    if (schedule.data && chosen) setStarted({ ...schedule.data, performance: chosen });
  };
  return (
    <>
      <h1>Door</h1>
      <p>Pick the performance you are admitting people to.</p>
      <ErrorNotice error={events.error ?? schedule.error} />
      <form
        class="door-pick"
        onSubmit={(e) => {
          e.preventDefault();
          open();
        }}
      >
        <EventSelect
          id="door-event"
          items={events.data ?? []}
          value={eventId}
          placeholder={events.loading ? 'Loading events…' : 'Choose an event'}
          onChange={(id) => {
            setEventId(id);
            setPerformanceId('');
          }}
        />
        <PerformanceSelect
          id="door-performance"
          items={schedule.data?.performances ?? []}
          timeZone={timeZone}
          value={performanceId}
          disabled={!schedule.data}
          placeholder={schedule.loading && eventId !== '' ? 'Loading…' : 'Choose a performance'}
          onChange={setPerformanceId}
        />
        <div class="actions">
          <button type="submit" disabled={performanceId === ''}>
            Open the door
          </button>
        </div>
      </form>
    </>
  );
}
