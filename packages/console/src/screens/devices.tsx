/**
 * `/app/devices` (permission `devices`: owners and managers): the organizer's door devices
 * (docs/console.md, "Devices"; docs/door.md). "Add a door device" takes a name, the
 * performances it admits to (grouped by event) and "Online only"; the answer's pairing
 * code is shown as a QR code, as the code and as the link, with the time it stops
 * working (10 minutes: the API keeps only a hash of the code and answers it this once).
 * Below, the devices, newest first, read again every 10 seconds while the page is
 * visible: status, last seen, how long ago the device last synced and how many scans it
 * uploaded today. The code stays shown until the list says the device paired (or the code
 * expired, or the device was revoked). A device not paired yet gets a new code; a device is revoked after a
 * confirming second click.
 */
import { useState } from 'preact/hooks';
import { ConfirmAction } from '../components/confirm-action.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { loadSchedules, PerformanceChecklist, type EventSchedule } from '../components/performance-checklist.tsx';
import { ActionsCol, NumCol } from '../components/table-headers.tsx';
import { ago, minutesLeft } from '../lib/ages.ts';
import {
  createDoorDevice,
  listDoorDevices,
  reissueDoorDeviceToken,
  revokeDoorDevice,
  setDoorDeviceOnlineOnly,
  type DeviceStatus,
  type DoorDevice,
  type ProvisionedDevice,
} from '../lib/door-devices-api.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { dateTime, timeOfDay } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync, usePolling } from '../lib/use-async.ts';
import './devices.css';

const REFRESH_MS = 10_000;

const STATUS: Readonly<Record<DeviceStatus, { label: string; badge: string }>> = {
  awaiting_pairing: { label: 'Waiting for pairing', badge: 'badge draft' },
  pairing_expired: { label: 'Pairing code expired', badge: 'badge' },
  active: { label: 'Active', badge: 'badge good' },
  revoked: { label: 'Revoked', badge: 'badge bad' },
};

export function Devices() {
  useTitle('Devices');
  const { client, organizer } = useSession();
  const devices = useAsync(listDoorDevices, []);
  const schedules = useAsync(() => loadSchedules(client), [client]);
  usePolling(devices.reload, REFRESH_MS);
  const [pairing, setPairing] = useState<ProvisionedDevice>();
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<string>();

  const act = async (device: DoorDevice, work: () => Promise<string>) => {
    setError(undefined);
    setStatus('');
    setBusy(device.id);
    try {
      setStatus(await work());
    } catch (err) {
      setError(err);
    }
    setBusy(undefined);
    devices.reload();
  };

  return (
    <>
      <h1>Devices</h1>
      <p>
        Phones and tablets that admit tickets at the door of {organizer.name} with a key of their own: each is paired
        once with a code made here, keeps a copy of its performances' tickets and goes on admitting when the network
        drops (unless it is online only). A revoked device's key stops working at once.
      </p>
      <CreateForm
        schedules={schedules.data ?? []}
        loading={schedules.loading && !schedules.data}
        onCreated={(device) => {
          setStatus('');
          setError(undefined);
          setPairing(device);
          devices.reload();
        }}
      />
      <ErrorNotice error={schedules.error} />
      {pairing !== undefined && stillPairing(pairing, devices.data) && (
        <PairingNotice device={pairing} timeZone={organizer.timezone} />
      )}
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNotice error={error ?? devices.error} />
      <h2>Door devices</h2>
      {devices.loading && !devices.data ? (
        <p class="loading">Loading…</p>
      ) : (
        <DeviceTable
          devices={devices.data ?? []}
          busy={busy}
          onRevoke={(device) =>
            void act(device, async () => {
              await revokeDoorDevice(device.id);
              if (pairing?.id === device.id) setPairing(undefined);
              return `${device.name} was revoked.`;
            })
          }
          onOnlineOnly={(device, onlineOnly) =>
            void act(device, async () => {
              await setDoorDeviceOnlineOnly(device.id, onlineOnly);
              return onlineOnly
                ? `${device.name} is online only: offline, its scans wait for the network.`
                : `${device.name} decides offline scans from its copy again.`;
            })
          }
          onNewCode={(device) =>
            void act(device, async () => {
              setPairing(await reissueDoorDeviceToken(device.id));
              return `A new pairing code for ${device.name} is shown above.`;
            })
          }
        />
      )}
    </>
  );
}

function CreateForm({
  schedules,
  loading,
  onCreated,
}: {
  schedules: readonly EventSchedule[];
  loading: boolean;
  onCreated: (device: ProvisionedDevice) => void;
}) {
  const [name, setName] = useState('');
  const [performanceIds, setPerformanceIds] = useState<string[]>([]);
  const [onlineOnly, setOnlineOnly] = useState(false);
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) =>
    param === 'name' || param === 'online_only'
      ? param
      : param === 'performance_ids' || param.startsWith('performance_ids.')
        ? 'performance_ids'
        : undefined,
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    if (performanceIds.length === 0) {
      errors.failField('performance_ids', 'Choose at least one performance.');
      return;
    }
    setBusy(true);
    try {
      // In the order the form lists them, whatever order they were ticked in.
      const listed = schedules.flatMap((s) => s.performances.map((p) => p.id));
      const device = await createDoorDevice({
        name: name.trim(),
        performance_ids: listed.filter((id) => performanceIds.includes(id)),
        online_only: onlineOnly,
      });
      setName('');
      setPerformanceIds([]);
      setOnlineOnly(false);
      onCreated(device);
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <h2>Add a door device</h2>
      <Field
        id={fieldId('name')}
        label="Name"
        hint="Where it stands or who holds it: “Main entrance”, “Side door tablet”."
        error={errors.of('name')}
      >
        {(a) => (
          <input
            {...a}
            type="text"
            required
            maxLength={100}
            autoComplete="off"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        )}
      </Field>
      {loading ? (
        <p class="loading">Loading the performances…</p>
      ) : (
        <PerformanceChecklist
          id={fieldId('performance_ids')}
          legend="Performances it admits to"
          schedules={schedules}
          chosen={performanceIds}
          error={errors.of('performance_ids')}
          onChange={setPerformanceIds}
        />
      )}
      <div class="field">
        <label class="check">
          <input
            id={fieldId('online_only')}
            type="checkbox"
            checked={onlineOnly}
            aria-describedby={`${fieldId('online_only')}-hint`}
            onChange={(e) => setOnlineOnly(e.currentTarget.checked)}
          />{' '}
          Online only
        </label>
        <p class="hint" id={`${fieldId('online_only')}-hint`}>
          It admits only while it reaches Marquee; without this it decides from its own copy of the tickets when the
          network drops, and uploads the scans later.
        </p>
        {errors.of('online_only') !== undefined && <p class="field-error">{errors.of('online_only')}</p>}
      </div>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Add device" busyLabel="Adding…" busy={busy} />
    </form>
  );
}

/** The pairing code of a device just added (or given a new code): QR code, code, link and when it stops working. */
function PairingNotice({ device, timeZone }: { device: ProvisionedDevice; timeZone: string }) {
  const [copied, setCopied] = useState('');
  const expires = device.provisioning_expires_at;
  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied.`);
    } catch {
      setCopied('Could not copy: select the text and copy it.');
    }
  };
  return (
    <section class="notice ok pairing" aria-labelledby="pairing-heading" data-device={device.id}>
      <h2 id="pairing-heading">Pair {device.name}</h2>
      <p>
        On the device, open <strong>/app/device</strong> and scan this code with its camera, or paste the code or the
        link there. It works once.
      </p>
      <img class="pairing-qr" src={device.provisioning_qr} alt={`QR code to pair ${device.name}`} />
      <dl class="facts">
        <dt>Code</dt>
        <dd>
          <code class="copyable" data-testid="pairing-code">
            {device.provisioning_token}
          </code>{' '}
          <button type="button" class="secondary" onClick={() => void copy(device.provisioning_token, 'Code')}>
            Copy code
          </button>
        </dd>
        <dt>Link</dt>
        <dd>
          <code class="copyable" data-testid="pairing-link">
            {device.provisioning_url}
          </code>{' '}
          <button type="button" class="secondary" onClick={() => void copy(device.provisioning_url, 'Link')}>
            Copy link
          </button>
        </dd>
      </dl>
      {expires !== null && (
        <p data-testid="pairing-expiry">
          Valid until <time dateTime={expires}>{timeOfDay(expires, timeZone)}</time>,{' '}
          {plural(minutesLeft(expires, Date.now()), 'minute')}.
        </p>
      )}
      <p aria-live="polite">{copied}</p>
    </section>
  );
}

/** Whether the code shown may still pair its device: not once the list says it paired, expired or was revoked. */
const stillPairing = (shown: ProvisionedDevice, listed: readonly DoorDevice[] | undefined) =>
  (listed?.find((d) => d.id === shown.id)?.status ?? 'awaiting_pairing') === 'awaiting_pairing';

const plural = (n: number, unit: string) => `${n} ${n === 1 ? unit : `${unit}s`}`;

function DeviceTable({
  devices,
  busy,
  onRevoke,
  onOnlineOnly,
  onNewCode,
}: {
  devices: readonly DoorDevice[];
  busy: string | undefined;
  onRevoke: (device: DoorDevice) => void;
  /** The device's setting from its next refresh (docs/door.md, "Verdicts"). */
  onOnlineOnly: (device: DoorDevice, onlineOnly: boolean) => void;
  onNewCode: (device: DoorDevice) => void;
}) {
  const { organizer } = useSession();
  const now = Date.now();
  return (
    <table class="door-devices">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Performances</th>
          <th scope="col">Status</th>
          <th scope="col">Last seen</th>
          <th scope="col">Sync</th>
          <NumCol>Scans today</NumCol>
          <ActionsCol />
        </tr>
      </thead>
      <tbody>
        {devices.map((d) => {
          const status = STATUS[d.status];
          const unpaired = d.status === 'awaiting_pairing' || d.status === 'pairing_expired';
          return (
            <tr key={d.id} data-device={d.id}>
              <th scope="row">
                {d.name}
                {d.online_only && (
                  <>
                    {' '}
                    <span class="badge">Online only</span>
                  </>
                )}
              </th>
              <td>
                <ul class="device-performances">
                  {d.performances.map((p) => (
                    <li key={p.id}>
                      {p.event_name} · {dateTime(p.starts_at, p.timezone)}
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <span class={status.badge}>{status.label}</span>
              </td>
              <td>{d.last_seen_at === null ? 'Never' : dateTime(d.last_seen_at, organizer.timezone)}</td>
              <td>{d.last_synced_at === null ? 'Not synced yet' : `synced ${ago(d.last_synced_at, now)}`}</td>
              <td class="num">{d.scans_today}</td>
              <td>
                <span class="row-actions">
                  {unpaired && (
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy === d.id}
                      aria-label={`New pairing code for ${d.name}`}
                      onClick={() => onNewCode(d)}
                    >
                      New pairing code
                    </button>
                  )}
                  {d.status !== 'revoked' && (
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy === d.id}
                      aria-label={`${d.online_only ? 'Allow offline verdicts on' : 'Make online only'} ${d.name}`}
                      onClick={() => onOnlineOnly(d, !d.online_only)}
                    >
                      {d.online_only ? 'Allow offline verdicts' : 'Make online only'}
                    </button>
                  )}
                  {d.status !== 'revoked' && (
                    <ConfirmAction
                      label="Revoke"
                      ariaLabel={`Revoke ${d.name}`}
                      confirmLabel={`Yes, revoke ${d.name}`}
                      consequence={`Revoke ${d.name}? Its key stops working at once; scans it has not uploaded are lost.`}
                      busy={busy === d.id}
                      onConfirm={() => onRevoke(d)}
                    />
                  )}
                </span>
              </td>
            </tr>
          );
        })}
        {devices.length === 0 && (
          <tr>
            <td colSpan={7}>No door devices yet.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
