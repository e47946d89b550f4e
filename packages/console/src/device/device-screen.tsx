/**
 * The paired door device at work (docs/door.md, "Door devices"): the verdict large
 * (colour, words, sound), the counter from the local copy, the copy's age, the offline
 * banner, the scan log and the double entries; codes from the camera, the typed field and
 * a keyboard-wedge scanner anywhere on the page.
 *
 * Timing, as on the door screen: each scan marks `door-scan-<n>` when its code arrives and,
 * the frame after its verdict renders, measures `door-result-<n>`.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Beeper } from '../door/beep.ts';
import { CameraPanel } from '../door/camera-panel.tsx';
import { formatTimeAt } from '../door/verdict-words.ts';
import type { DoorDeviceSelf } from './contract.ts';
import { forgetEverything, type DeviceDb, type DeviceScan, type DoubleEntry, type Pairing } from './device-db.ts';
import { DeviceSession, REVOKED, type DeviceState } from './device-session.ts';
import { listenForWedge } from './keyboard-wedge.ts';
import { coarseAgeOf, copyLine, formatCount } from './sync-age.ts';
import { describeScan, performanceLabel, zoneOf } from './verdict.ts';

let scanCounter = 0;

interface Shown {
  token: number;
  id: string;
}

export function DeviceScreen({ db, pairing, onUnpaired }: { db: DeviceDb; pairing: Pairing; onUnpaired: () => void }) {
  const session = useMemo(() => new DeviceSession(db, pairing), [db, pairing]);
  const [state, setState] = useState<DeviceState>(session.state);
  const [shown, setShown] = useState<Shown & { scan: DeviceScan }>();
  const [confirmUnpair, setConfirmUnpair] = useState(false);
  const beeper = useMemo(() => new Beeper(), []);
  const latest = useRef(0);

  useEffect(() => {
    const unsubscribe = session.subscribe(setState);
    void session.start();
    const online = () => session.setBrowserOnline(true);
    const offline = () => session.setBrowserOnline(false);
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    return () => {
      unsubscribe();
      session.stop();
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
    };
  }, [session]);

  const handle = async (raw: string) => {
    if (raw.trim() === '') return;
    const token = ++scanCounter;
    performance.mark(`door-scan-${token}`);
    latest.current = token;
    const scan = await session.scan(raw);
    if (token !== latest.current) return;
    const view = describeScan(scan, state.device);
    beeper.play(view.tone);
    setShown({ token, id: scan.device_scan_id, scan });
  };

  useEffect(() => listenForWedge((wedged) => void handle(wedged)), [session, state.device]);

  // The verdict is in the page: measure from the scan's mark to the next frame. A layout
  // effect, run as the render is committed: a plain effect would itself wait for a frame.
  useLayoutEffect(() => {
    if (!shown) return;
    const { token } = shown;
    requestAnimationFrame(() => {
      const name = `door-result-${token}`;
      if (performance.getEntriesByName(name).length === 0) performance.measure(name, `door-scan-${token}`);
    });
  }, [shown?.token]);

  const { device } = state;
  // The log is drawn again only when it changed, not on every tick of the sync age.
  const logLines = useMemo(
    () => state.log.map((scan) => <LogEntry key={scan.device_scan_id} scan={scan} device={state.device} />),
    [state.log, state.device],
  );
  // The big verdict follows its scan as the upload settles it.
  const current = shown && (state.log.find((scan) => scan.device_scan_id === shown.id) ?? shown.scan);

  if (state.revoked)
    return (
      <>
        <h1>Door device: {device.name}</h1>
        <div class="notice error door-banner" role="alert" data-state="revoked">
          <p>{REVOKED}</p>
          <p data-unsent={state.pending}>
            {state.pending === 0
              ? 'Every scan was uploaded before.'
              : `${formatCount(state.pending)} scan${state.pending === 1 ? '' : 's'} made on this device could not be uploaded.`}
          </p>
        </div>
        <button type="button" onClick={() => void unpair(db, onUnpaired)}>
          Unpair this device
        </button>
      </>
    );

  return (
    <>
      <div class="screen-head">
        <h1>Door device: {device.name}</h1>
      </div>
      <p class="hint device-performances">
        Admits: {device.performances.map((p) => performanceLabel(device, p.id)).join('; ')}
        {device.online_only && ' · online only'}
      </p>

      {state.network === 'offline' && (
        <div class="notice error door-banner" role="alert" data-state="offline">
          <p>
            <strong>Offline:</strong>{' '}
            {device.online_only
              ? 'scans are queued, not verified, until the network is back'
              : 'deciding from the tickets as of '}
            {!device.online_only && (state.syncedAt === null ? 'never' : <Ago since={state.syncedAt} />)}.{' '}
            {formatCount(state.pending)} scan{state.pending === 1 ? '' : 's'} waiting to be uploaded.
          </p>
        </div>
      )}
      {state.trouble !== undefined && state.network === 'online' && (
        <div class="notice error" role="alert" data-state="trouble">
          <p>{state.trouble}</p>
        </div>
      )}

      <p class="door-counter" aria-live="polite">
        Admitted <strong data-admitted>{formatCount(state.counts.admitted)}</strong> of{' '}
        <strong data-sold>{formatCount(state.counts.sold)}</strong> sold
      </p>
      <p
        class="hint device-sync"
        data-synced-at={state.syncedAt ?? ''}
        data-tickets={state.counts.total}
        data-sync-ms={state.lastSync?.ms}
        data-sync-items={state.lastSync?.items}
      >
        <CopyLine syncedAt={state.syncedAt} total={state.counts.total} />
        {state.network === 'online' && state.pending > 0 && ` · ${formatCount(state.pending)} scans to upload`}
      </p>

      <Verdict shown={shown && current && { token: shown.token, scan: current }} state={state} />

      <div class="door-inputs">
        <CodeForm
          onCode={(typed) => {
            beeper.unlock();
            return handle(typed);
          }}
        />
        <CameraPanel
          onCode={(text) => void handle(text)}
          onStart={() => beeper.unlock()}
          fallback="Type the codes instead."
        />
      </div>
      <p class="hint">A handheld scanner works anywhere on this page: scan, and its code is checked.</p>

      {state.doubles.length > 0 && (
        <>
          <h2>Double entries</h2>
          <ul class="device-doubles">
            {state.doubles.map((entry) => (
              <DoubleLine key={entry.id} entry={entry} state={state} />
            ))}
          </ul>
        </>
      )}

      <h2>Scans</h2>
      <ol class="door-log">{logLines}</ol>

      <h2>This device</h2>
      {confirmUnpair ? (
        <div class="notice" role="group" aria-label="Unpair">
          <p>
            Unpair forgets this device's key, its tickets and its scans
            {state.pending > 0 && `, ${formatCount(state.pending)} of them not uploaded yet`}. Pair it again with a new
            code.
          </p>
          <button type="button" class="danger" onClick={() => void unpair(db, onUnpaired, session)}>
            Unpair now
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setConfirmUnpair(false)}>
            Keep it paired
          </button>
        </div>
      ) : (
        <button type="button" class="secondary" onClick={() => setConfirmUnpair(true)}>
          Unpair
        </button>
      )}
    </>
  );
}

async function unpair(db: DeviceDb, onUnpaired: () => void, session?: DeviceSession): Promise<void> {
  session?.stop();
  await forgetEverything(db);
  onUnpaired();
}

function Verdict({ shown, state }: { shown: { token: number; scan: DeviceScan } | undefined; state: DeviceState }) {
  if (!shown)
    return (
      <div class="door-verdict idle" role="status" aria-live="assertive">
        Scan a ticket or type its code.
      </div>
    );
  const view = describeScan(shown.scan, state.device);
  return (
    <div
      class={`door-verdict ${view.kind}`}
      data-token={shown.token}
      data-outcome={view.kind}
      data-reason={view.reason}
      data-sound={view.tone}
      role="status"
      aria-live="assertive"
    >
      <p class="headline">{view.headline}</p>
      <p>{view.detail}</p>
    </div>
  );
}

function LogEntry({ scan, device }: { scan: DeviceScan; device: DoorDeviceSelf }) {
  const at = formatTimeAt(scan.scanned_at, zoneOf(device, scan.ticket?.performance_id), 'en-US');
  const view = describeScan(scan, device, 'en-US');
  return (
    <li data-id={scan.device_scan_id} data-code={scan.code} data-outcome={view.kind} data-pending={scan.pending}>
      {at} · {scan.code} · <strong>{view.headline}</strong>: {view.detail}
      {scan.pending === 1 && scan.mode === 'offline' && ' (waiting to be uploaded)'}
    </li>
  );
}

function DoubleLine({ entry, state }: { entry: DoubleEntry; state: DeviceState }) {
  const zone = zoneOf(state.device, entry.performance_id);
  const at = (iso: string | null) => (iso === null ? 'an unknown time' : formatTimeAt(iso, zone, 'en-US'));
  return (
    <li data-double={entry.id}>
      <strong>Double entry:</strong> {entry.ticket_no ?? 'a ticket'} admitted here at {at(entry.admitted_at)}, scanned
      again at {entry.gate} at {at(entry.scanned_at)}
    </li>
  );
}

/**
 * The typed code, a component of its own so that typing draws the field only. Enter
 * submits; a keyboard-wedge scanner typing here submits the same way.
 */
function CodeForm({ onCode }: { onCode: (code: string) => Promise<void> }) {
  const [code, setCode] = useState('');
  const input = useRef<HTMLInputElement>(null);
  return (
    <form
      class="door-type"
      onSubmit={(e) => {
        e.preventDefault();
        const typed = code;
        input.current?.focus();
        // Cleared with the verdict, not before: a change on screen now would make the
        // browser draw a frame before it reads the copy, a frame more before the verdict.
        void onCode(typed).finally(() => setCode((current) => (current === typed ? '' : current)));
      }}
    >
      <div class="field">
        <label for="device-code">Serial or ticket number</label>
        <input
          id="device-code"
          ref={input}
          value={code}
          autoComplete="off"
          autoCapitalize="characters"
          spellcheck={false}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Check in</button>
    </form>
  );
}

/** A clock of its own, so the ticking age redraws these few words, not the screen. */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);
  return now;
}

function Ago({ since }: { since: number }) {
  return <>{coarseAgeOf(since, useNow())}</>;
}

function CopyLine({ syncedAt, total }: { syncedAt: number | null; total: number }) {
  return <>{copyLine(syncedAt, total, useNow())}</>;
}
