/**
 * "Pair this door device" (docs/door.md, "Provisioning"): the camera reads the pairing QR
 * code the dashboard shows, or the code or link is pasted. The API's own words explain a
 * code that cannot be used (used, expired, never issued).
 */
import { useRef, useState } from 'preact/hooks';
import { CameraPanel } from '../door/camera-panel.tsx';
import { ApiRefusal, NoAnswer } from './api.ts';
import type { DeviceDb, Pairing } from './device-db.ts';
import { pairDevice, pairingTokenOf } from './pairing.ts';

export function PairingScreen({ db, onPaired }: { db: DeviceDb; onPaired: (pairing: Pairing) => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);

  const pair = async (input: string) => {
    const token = pairingTokenOf(input);
    if (token === undefined) {
      setError('This is not a pairing code: it starts with mqd_, or is a link ending in #pair=mqd_….');
      return;
    }
    if (busyRef.current) return;
    busyRef.current = true;
    setBusy(true);
    setError(undefined);
    try {
      const pairing = await pairDevice(db, token);
      onPaired(pairing);
    } catch (err) {
      setError(
        err instanceof ApiRefusal
          ? err.detail
          : err instanceof NoAnswer
            ? 'Marquee cannot be reached. Check the network and try again.'
            : String(err),
      );
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };

  return (
    <>
      <p>
        In the dashboard, open <strong>Devices</strong>, create a door device and show its pairing code to this camera,
        or paste the code or link below. A code works once, for 10 minutes.
      </p>
      <div class="door-inputs">
        <form
          class="door-type"
          onSubmit={(e) => {
            e.preventDefault();
            void pair(text);
          }}
        >
          <div class="field">
            <label for="pairing-code">Pairing code or link</label>
            <input
              id="pairing-code"
              value={text}
              autoComplete="off"
              spellcheck={false}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </div>
          <button type="submit" disabled={busy}>
            {busy ? 'Pairing…' : 'Pair'}
          </button>
        </form>
        <CameraPanel
          onCode={(code) => void pair(code)}
          startLabel="Read the pairing code with the camera"
          fallback="Paste the code instead."
        />
      </div>
      {error !== undefined && (
        <div class="notice error" role="alert" data-pairing-error>
          <p>{error}</p>
        </div>
      )}
    </>
  );
}
