/**
 * "Pair this door device" (docs/door.md, "Provisioning"): the camera reads the pairing QR
 * code the dashboard shows, or the code or link is pasted. The API's own words explain a
 * code that cannot be used (used, expired, never issued).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { startCamera, type CameraReader } from '../door/camera.ts';
import { RepeatFilter } from '../door/repeat-filter.ts';
import { ApiRefusal, NoAnswer } from './api.ts';
import type { DeviceDb, Pairing } from './device-db.ts';
import { pairDevice, pairingTokenOf } from './pairing.ts';

const REPEAT_WINDOW_MS = 4_000;

export function PairingScreen({ db, onPaired }: { db: DeviceDb; onPaired: (pairing: Pairing) => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [camera, setCamera] = useState<CameraReader>();
  const [cameraError, setCameraError] = useState<string>();
  const video = useRef<HTMLVideoElement>(null);
  const busyRef = useRef(false);
  const repeats = useRef(new RepeatFilter(REPEAT_WINDOW_MS));

  useEffect(() => () => camera?.stop(), [camera]);

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
      camera?.stop();
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

  const startReading = async () => {
    setCameraError(undefined);
    if (!video.current) return;
    try {
      setCamera(
        await startCamera(video.current, (code) => {
          if (repeats.current.accept(code)) void pair(code);
        }),
      );
    } catch (err) {
      setCameraError(err instanceof Error ? err.message : String(err));
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
        <div class="door-camera">
          {camera ? (
            <button type="button" class="secondary" onClick={() => setCamera(undefined)}>
              Stop camera
            </button>
          ) : (
            <button type="button" onClick={() => void startReading()}>
              Read the pairing code with the camera
            </button>
          )}
          {camera && <p class="hint">Reading QR codes with {camera.decoder}.</p>}
          {cameraError !== undefined && (
            <div class="notice error" role="alert">
              <p>The camera is not available ({cameraError}). Paste the code instead.</p>
            </div>
          )}
          <video ref={video} class={camera ? 'door-video' : 'door-video off'} aria-label="Camera view" muted />
        </div>
      </div>
      {error !== undefined && (
        <div class="notice error" role="alert" data-pairing-error>
          <p>{error}</p>
        </div>
      )}
    </>
  );
}
