/**
 * The door for one performance (docs/door.md): the camera and a typed-code field feed the
 * scan queue (scan-queue.ts); the latest verdict is shown big, with a sound, the earlier
 * ones in a list below, the counter above. The network state and a rate limit are said
 * prominently, since scans then wait on this device.
 *
 * Timing: each scan sets the mark `door-scan-<n>` when the code arrives and, once its
 * verdict is on screen (the frame after the render), the measure `door-result-<n>`; the
 * browser test reads them with performance.getEntriesByType('measure').
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EventDetail, Performance, Ticket } from '@marquee/sdk';
import { performanceName } from '../components/performance-picker.tsx';
import { sessionClient, useSession } from '../lib/session.ts';
import { usePolling } from '../lib/use-async.ts';
import { useTitle } from '../lib/title.ts';
import { Attendance, type Counts } from './attendance.ts';
import { Beeper, type Tone } from './beep.ts';
import { CameraPanel } from './camera-panel.tsx';
import { describeOutcome, formatTimeAt, type Outcome } from './outcome.ts';
import { ScanQueue, type QueueStatus } from './scan-queue.ts';
import { openScanStore, scanStoreName, type ScanStore, type StoredScan } from './scan-store.ts';
import './door.css';

const COUNTER_REFRESH_MS = 10_000;
const LOG_LENGTH = 30;
/** Settled scans stay on the device this long (docs/door.md, "Offline"); pending ones until sent. */
const KEEP_SETTLED_MS = 24 * 60 * 60 * 1000;

interface Props {
  event: EventDetail;
  performances: Performance[];
  performance: Performance;
  onLeave: () => void;
}

let scanCounter = 0;

function toneOf(scan: StoredScan): Tone {
  if (scan.pending === 1) return 'queued';
  return scan.outcome?.kind === 'admitted' ? 'admitted' : 'refused';
}

function ticketOf(outcome: Outcome | undefined): Ticket | undefined {
  return outcome && 'ticket' in outcome ? outcome.ticket : undefined;
}

export function DoorPanel({ event, performances, performance: chosen, onLeave }: Props) {
  useTitle('Door');
  const { body } = useSession();
  // Scans belong to the person and the organizer they were made for (docs/door.md, "Offline").
  const owner = `${body.user.id}:${body.organizer_id}`;
  // The door's own client: no silent retries, so a lost network or a 429 shows at once and
  // the queue, not the client, decides when to try again (docs/door.md, "Offline").
  const door = useMemo(() => sessionClient({ maxRetries: 0, timeoutMs: 10_000 }), []);
  const attendance = useMemo(() => new Attendance(door, chosen.id), [door, chosen.id]);
  const beeper = useMemo(() => new Beeper(), []);
  const [queue, setQueue] = useState<ScanQueue>();
  const [status, setStatus] = useState<QueueStatus>({
    network: navigator.onLine ? 'online' : 'offline',
    waitingUntil: undefined,
    waitCause: undefined,
    pending: 0,
  });
  const [log, setLog] = useState<StoredScan[]>([]);
  const [shown, setShown] = useState<{ token: number; scan: StoredScan; tone: Tone }>();
  const [counts, setCounts] = useState<Counts>();
  const [code, setCode] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const latest = useRef(0);

  const ticketTypeName = (ticket: Ticket) =>
    event.ticket_types.find((type) => type.id === ticket.ticket_type_id)?.name ?? 'Ticket';

  const performanceLabel = async (ticket: Ticket): Promise<string> => {
    const local = performances.find((p) => p.id === ticket.performance_id);
    if (local) return `${event.title}, ${performanceName(local, event.timezone)}`;
    const other = await door.performances.get(ticket.performance_id);
    const otherEvent = await door.events.get(other.event_id);
    return `${otherEvent.title}, ${performanceName(other, otherEvent.timezone)}`;
  };

  // The store and the queue live as long as the panel; scans an earlier visit left queued go first.
  useEffect(() => {
    let closed = false;
    let store: ScanStore | undefined;
    let opened: ScanQueue | undefined;
    const refreshLog = async (settled?: StoredScan) => {
      if (!store || closed) return;
      const ticket = ticketOf(settled?.outcome);
      if (ticket) {
        attendance.note(ticket);
        setCounts(attendance.counts());
      }
      const recent = await store.recent(LOG_LENGTH);
      if (closed) return;
      setLog(recent);
      setShown((current) => {
        const now = current && recent.find((scan) => scan.seq === current.scan.seq);
        return current && now ? { ...current, scan: now } : current;
      });
    };
    void (async () => {
      store = await openScanStore(await scanStoreName(owner));
      if (closed) return store.close();
      await store.pruneSettled(Date.now() - KEEP_SETTLED_MS);
      opened = new ScanQueue({
        store,
        api: door,
        performanceLabel,
        onScan: (scan) => void refreshLog(scan),
        onStatus: setStatus,
      });
      setQueue(opened);
      await refreshLog();
      await opened.kick();
    })();
    const online = () => opened?.setBrowserOnline(true);
    const offline = () => opened?.setBrowserOnline(false);
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    return () => {
      closed = true;
      opened?.close();
      store?.close();
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
    };
  }, [door, owner]);

  const refreshCounts = () =>
    void attendance.refresh().then(setCounts, () => {
      // Offline or refused: the last counts stay up until the next refresh.
    });
  useEffect(refreshCounts, [attendance]);
  usePolling(refreshCounts, COUNTER_REFRESH_MS);

  // The verdict is on screen: measure from the scan's mark to the next frame.
  useEffect(() => {
    if (!shown) return;
    const { token } = shown;
    requestAnimationFrame(() => {
      const name = `door-result-${token}`;
      if (performance.getEntriesByName(name).length === 0) performance.measure(name, `door-scan-${token}`);
    });
  }, [shown?.token]);

  const handle = async (raw: string) => {
    if (!queue || raw.trim() === '') return;
    const token = ++scanCounter;
    performance.mark(`door-scan-${token}`);
    latest.current = token;
    const scan = await queue.scan(raw, chosen.id);
    if (token !== latest.current) return;
    const tone = toneOf(scan);
    beeper.play(tone);
    setShown({ token, scan, tone });
  };

  const waitingSince = status.waitingUntil === undefined ? undefined : new Date(status.waitingUntil).toISOString();
  return (
    <>
      <div class="screen-head">
        <h1>
          Door: {event.title}, {performanceName(chosen, event.timezone)}
        </h1>
        <button type="button" class="secondary" onClick={onLeave}>
          Change performance
        </button>
      </div>

      {status.network === 'offline' && (
        <div class="notice error door-banner" role="alert" data-state="offline">
          <p>
            <strong>Offline.</strong> Scans are kept on this device and checked, in order, when the network is back (
            {status.pending} waiting).
          </p>
        </div>
      )}
      {status.network === 'online' && waitingSince !== undefined && (
        <div class="notice error door-banner" role="alert" data-state={status.waitCause}>
          <p>
            {status.waitCause === 'rate_limited' ? (
              <>
                <strong>Rate limit reached.</strong> Your account has made as many check-ins as it may this minute;
                check-ins resume at {formatTimeAt(waitingSince, event.timezone)}.
              </>
            ) : (
              <>
                <strong>Marquee is busy.</strong> Check-ins resume at {formatTimeAt(waitingSince, event.timezone)}.
              </>
            )}{' '}
            {status.pending} scan{status.pending === 1 ? '' : 's'} waiting on this device. One account per door device
            avoids this (docs/door.md).
          </p>
        </div>
      )}

      <p class="door-counter" aria-live="polite">
        {counts === undefined ? (
          'Counting tickets…'
        ) : (
          <>
            Admitted <strong data-admitted>{counts.admitted}</strong> of <strong data-sold>{counts.sold}</strong> sold
          </>
        )}
      </p>

      <Verdict
        shown={shown}
        timeZone={event.timezone}
        ticketTypeName={ticketTypeName}
        waitingFor={
          status.network === 'offline'
            ? 'when the network is back'
            : status.waitCause === 'rate_limited' && waitingSince !== undefined
              ? `when check-ins resume at ${formatTimeAt(waitingSince, event.timezone)}`
              : status.waitCause === 'unavailable'
                ? 'when Marquee answers again'
                : 'after the scans before it'
        }
      />

      <div class="door-inputs">
        <form
          class="door-type"
          onSubmit={(e) => {
            e.preventDefault();
            beeper.unlock();
            const typed = code;
            setCode('');
            void handle(typed);
            input.current?.focus();
          }}
        >
          <div class="field">
            <label for="door-code">Serial or ticket number</label>
            <input
              id="door-code"
              ref={input}
              value={code}
              autoComplete="off"
              autoCapitalize="characters"
              spellcheck={false}
              autoFocus
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </div>
          <button type="submit" disabled={!queue}>
            Check in
          </button>
        </form>
        <CameraPanel
          onCode={(text) => void handle(text)}
          onStart={() => beeper.unlock()}
          fallback="Type the codes instead."
          disabled={!queue}
        />
      </div>

      <h2>Scans</h2>
      <ol class="door-log">
        {log.map((scan) => (
          <LogEntry key={scan.seq} scan={scan} timeZone={event.timezone} />
        ))}
      </ol>
    </>
  );
}

function Verdict({
  shown,
  timeZone,
  ticketTypeName,
  waitingFor,
}: {
  shown: { token: number; scan: StoredScan; tone: Tone } | undefined;
  timeZone: string;
  ticketTypeName: (ticket: Ticket) => string;
  /** When a queued scan will be checked: "when the network is back". */
  waitingFor: string;
}) {
  if (!shown) return <div class="door-verdict idle">Scan a ticket or type its code.</div>;
  const { scan, tone, token } = shown;
  const common = { 'data-token': token, 'data-sound': tone, role: 'status', 'aria-live': 'assertive' } as const;
  if (scan.pending === 1 || !scan.outcome)
    return (
      <div class="door-verdict queued" data-outcome="queued" {...common}>
        <p class="headline">Queued, not verified</p>
        <p>
          {scan.code.trim().toUpperCase()} will be checked {waitingFor}. Do not count it as admitted yet.
        </p>
      </div>
    );
  const outcome = scan.outcome;
  const { headline, detail } = describeOutcome(outcome, timeZone);
  const ticket = ticketOf(outcome);
  const reason = outcome.kind === 'refused' ? outcome.reason : undefined;
  return (
    <div class={`door-verdict ${outcome.kind}`} data-outcome={outcome.kind} data-reason={reason} {...common}>
      <p class="headline">{headline}</p>
      {outcome.kind === 'admitted' && ticket ? (
        <p>
          <strong>{ticketTypeName(ticket)}</strong> ·{' '}
          {[ticket.holder.first_name, ticket.holder.last_name].join(' ').trim()} · {ticket.ticket_no}
        </p>
      ) : (
        <p>{detail}</p>
      )}
    </div>
  );
}

function LogEntry({ scan, timeZone }: { scan: StoredScan; timeZone: string }) {
  const at = formatTimeAt(new Date(scan.scannedAt).toISOString(), timeZone);
  const code = scan.code.trim().toUpperCase();
  if (scan.pending === 1 || !scan.outcome)
    return (
      <li data-seq={scan.seq} data-outcome="queued">
        {at} · {code} · <strong>Queued</strong>, not verified yet
      </li>
    );
  const { headline, detail } = describeOutcome(scan.outcome, timeZone);
  return (
    <li data-seq={scan.seq} data-outcome={scan.outcome.kind} data-code={code}>
      {at} · {code} · <strong>{headline}</strong>: {detail}
      {scan.waited && ' (checked after the scan waited)'}
    </li>
  );
}
