/**
 * `/app/attendance` (permission `read`): who is in, for one performance (docs/console.md,
 * "Attendance"). Pick the event and the performance; then
 * `GET /dashboard/v1/performances/{id}/attendance`, read again every 5 seconds while the
 * page is visible: admitted of sold, per gate (each door device, and "Console and API"
 * for the door screen and integrations), admissions per minute over the last 15 minutes
 * as a bar chart with the same numbers in a table, and the double entries (a ticket
 * scanned again after it was admitted, at another gate or the same). Times are in the
 * event's time zone.
 */
import { useState } from 'preact/hooks';
import type { Event } from '@marquee/sdk';
import { BarChart } from '../components/bar-chart.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { EventSelect, PerformanceSelect, performanceName } from '../components/performance-picker.tsx';
import { NumCol } from '../components/table-headers.tsx';
import { getAttendance, type Attendance } from '../lib/door-devices-api.ts';
import { dateTime, timeOfDay } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync, usePolling } from '../lib/use-async.ts';
import './devices.css';
import './reports.css';

const PAGE = 100;
const REFRESH_MS = 5_000;

export function AttendanceScreen() {
  useTitle('Attendance');
  const { client } = useSession();
  const [eventId, setEventId] = useState('');
  const [performanceId, setPerformanceId] = useState('');
  const events = useAsync(async () => (await client.events.list({ limit: PAGE })).data, [client]);
  const performances = useAsync(
    async () => (eventId === '' ? [] : (await client.events.listPerformances(eventId, { limit: PAGE })).data),
    [client, eventId],
  );
  const event = events.data?.find((e) => e.id === eventId);
  const performance = performances.data?.find((p) => p.id === performanceId);
  return (
    <>
      <h1>Attendance</h1>
      <p>Who is in: admissions at every gate, live.</p>
      <ErrorNotice error={events.error ?? performances.error} />
      <form class="row" onSubmit={(e) => e.preventDefault()}>
        <EventSelect
          id="attendance-event"
          items={events.data ?? []}
          value={eventId}
          placeholder={events.loading && !events.data ? 'Loading events…' : 'Choose an event'}
          onChange={(id) => {
            setEventId(id);
            setPerformanceId('');
          }}
        />
        <PerformanceSelect
          id="attendance-performance"
          items={performances.data ?? []}
          timeZone={event?.timezone ?? 'UTC'}
          value={performanceId}
          disabled={eventId === '' || !performances.data}
          placeholder={performances.loading && eventId !== '' ? 'Loading…' : 'Choose a performance'}
          onChange={setPerformanceId}
        />
      </form>
      {event !== undefined && performance !== undefined && (
        <AttendancePanel
          key={performance.id}
          event={event}
          performanceId={performance.id}
          name={performanceName(performance, event.timezone)}
        />
      )}
    </>
  );
}

function AttendancePanel({ event, performanceId, name }: { event: Event; performanceId: string; name: string }) {
  const attendance = useAsync(() => getAttendance(performanceId), [performanceId]);
  usePolling(attendance.reload, REFRESH_MS);
  const data = attendance.data;
  return (
    <section aria-labelledby="attendance-heading">
      <h2 id="attendance-heading">
        {event.title} · {name}
      </h2>
      <ErrorNotice error={attendance.error} />
      {data === undefined ? (
        attendance.error === undefined && <p class="loading">Loading…</p>
      ) : (
        <AttendanceBody attendance={data} timeZone={event.timezone} />
      )}
    </section>
  );
}

function AttendanceBody({ attendance: a, timeZone }: { attendance: Attendance; timeZone: string }) {
  const at = (iso: string) => dateTime(iso, timeZone, undefined, { seconds: true });
  return (
    <>
      <p class="attendance-count" data-testid="attendance-count" aria-live="polite">
        Admitted <strong>{a.admitted}</strong> of {a.sold} sold
      </p>
      <p class="hint">Times are in {timeZone}, the event's time zone. Read again every 5 seconds.</p>

      <h3>Per gate</h3>
      {a.gates.length === 0 ? (
        <p>Nobody admitted yet.</p>
      ) : (
        <table class="attendance-gates">
          <thead>
            <tr>
              <th scope="col">Gate</th>
              <NumCol>Admitted</NumCol>
              <th scope="col">Last admitted</th>
            </tr>
          </thead>
          <tbody>
            {a.gates.map((g) => (
              <tr key={g.device_id ?? 'console'} data-gate={g.device_id ?? 'console'}>
                <th scope="row">{g.name}</th>
                <td class="num">{g.admitted}</td>
                <td>{g.last_admitted_at === null ? '—' : at(g.last_admitted_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <PerMinute attendance={a} timeZone={timeZone} />

      <h3>Double entries</h3>
      {a.double_entries.length === 0 ? (
        <p>No ticket was scanned again after it was admitted.</p>
      ) : (
        <table class="double-entries">
          <thead>
            <tr>
              <th scope="col">Ticket</th>
              <th scope="col">First gate</th>
              <th scope="col">Admitted</th>
              <th scope="col">Second gate</th>
              <th scope="col">Scanned</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {a.double_entries.map((d) => (
              <tr key={`${d.ticket_id}:${d.second.scanned_at}:${d.second.received_at}`} data-ticket={d.ticket_id}>
                <th scope="row">{d.ticket_no ?? '—'}</th>
                <td>{d.first.device_name ?? 'Console and API'}</td>
                <td>{d.first.checked_in_at === null ? '—' : at(d.first.checked_in_at)}</td>
                <td>{d.second.device_name ?? 'Console and API'}</td>
                <td>{at(d.second.scanned_at)}</td>
                <td>{at(d.second.received_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function PerMinute({ attendance, timeZone }: { attendance: Attendance; timeZone: string }) {
  const minutes = attendance.per_minute;
  const bars = minutes.map((m) => ({
    key: m.minute,
    label: timeOfDay(m.minute, timeZone),
    value: m.admitted,
    valueLabel: `${m.admitted} admitted`,
  }));
  const first = bars[0];
  const last = bars.at(-1);
  const total = minutes.reduce((sum, m) => sum + m.admitted, 0);
  return (
    <>
      <h3>Per minute</h3>
      {first === undefined || last === undefined ? (
        <p>No minutes to show.</p>
      ) : (
        <div class="chart-with-table">
          <BarChart
            id="per-minute-chart"
            title="Admitted per minute"
            description={`${total} admitted in the ${bars.length} minutes from ${first.label} to ${last.label}, the current one last. The table beside the chart lists the same numbers.`}
            bars={bars}
            formatValue={(n) => (Number.isInteger(n) ? String(n) : '')}
          />
          <table class="attendance-minutes">
            <caption class="visually-hidden">Admitted per minute</caption>
            <thead>
              <tr>
                <th scope="col">Minute</th>
                <NumCol>Admitted</NumCol>
              </tr>
            </thead>
            <tbody>
              {minutes.map((m, i) => (
                <tr key={m.minute}>
                  <th scope="row">
                    <time dateTime={m.minute}>{bars[i]!.label}</time>
                  </th>
                  <td class="num">{m.admitted}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
