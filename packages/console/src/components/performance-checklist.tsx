/**
 * Choosing several performances, grouped by event (the Devices screen's form,
 * screens/devices.tsx): one group per event, a checkbox per performance with its date
 * and time in the event's zone (performance-picker.tsx names them the same way).
 */
import type { Event, Marquee, Performance } from '@marquee/sdk';
import { performanceName } from './performance-picker.tsx';

export interface EventSchedule {
  event: Event;
  performances: Performance[];
}

const PAGE = 100;

/** The organizer's events that are not archived, each with its performances (the first page of each). */
export async function loadSchedules(client: Marquee): Promise<EventSchedule[]> {
  const events = (await client.events.list({ limit: PAGE })).data.filter((e) => !e.is_archived);
  return Promise.all(
    events.map(async (event) => ({
      event,
      performances: (await client.events.listPerformances(event.id, { limit: PAGE })).data,
    })),
  );
}

export function PerformanceChecklist({
  id,
  legend,
  schedules,
  chosen,
  error,
  onChange,
}: {
  id: string;
  legend: string;
  schedules: readonly EventSchedule[];
  chosen: readonly string[];
  error?: string | undefined;
  onChange: (ids: string[]) => void;
}) {
  const toggle = (performanceId: string, on: boolean) =>
    onChange(on ? [...chosen, performanceId] : chosen.filter((p) => p !== performanceId));
  const withPerformances = schedules.filter((s) => s.performances.length > 0);
  return (
    <fieldset
      id={id}
      tabIndex={-1}
      class={error === undefined ? 'performance-checklist' : 'performance-checklist invalid'}
      {...(error !== undefined ? { 'aria-describedby': `${id}-error` } : {})}
    >
      <legend>{legend}</legend>
      {withPerformances.length === 0 && <p class="hint">The organizer has no performance yet.</p>}
      {withPerformances.map(({ event, performances }) => (
        <fieldset key={event.id} class="event-group">
          <legend>{event.title}</legend>
          {performances.map((p) => (
            <label class="check" key={p.id}>
              <input
                type="checkbox"
                value={p.id}
                checked={chosen.includes(p.id)}
                onChange={(e) => toggle(p.id, e.currentTarget.checked)}
              />{' '}
              {performanceName(p, event.timezone)}
            </label>
          ))}
        </fieldset>
      ))}
      {error !== undefined && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
