/**
 * The camera of a screen that reads QR codes (the door, the door device and its pairing;
 * docs/door.md, "Camera and decoder"): start and stop, which decoder reads, why the camera
 * is not available, and the video. A code the camera keeps seeing is handed over once
 * (repeat-filter.ts, docs/door.md "Repeats"); the camera stops when the panel goes.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { startCamera, type CameraReader } from './camera.ts';
import { RepeatFilter } from './repeat-filter.ts';

/** A code kept in view is acted on once, then again only after it left view this long. */
const REPEAT_WINDOW_MS = 4_000;

export function CameraPanel({
  onCode,
  onStart,
  startLabel = 'Start camera',
  fallback,
  disabled = false,
}: {
  /** A code read (not a repeat of one still in view). */
  onCode: (text: string) => void;
  /** Runs on the Start press, a user gesture (the door unlocks its sounds). */
  onStart?: () => void;
  startLabel?: string;
  /** What to do without a camera: "Type the codes instead." */
  fallback: string;
  disabled?: boolean;
}) {
  const [camera, setCamera] = useState<CameraReader>();
  const [cameraError, setCameraError] = useState<string>();
  const video = useRef<HTMLVideoElement>(null);
  const repeats = useMemo(() => new RepeatFilter(REPEAT_WINDOW_MS), []);
  // The reader keeps the first callback; the screen's latest one is called through this.
  const latestOnCode = useRef(onCode);
  latestOnCode.current = onCode;

  useEffect(() => () => camera?.stop(), [camera]);

  const startReading = async () => {
    onStart?.();
    setCameraError(undefined);
    if (!video.current) return;
    try {
      setCamera(await startCamera(video.current, (text) => repeats.accept(text) && latestOnCode.current(text)));
    } catch (err) {
      setCameraError(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <div class="door-camera">
      {camera ? (
        <button type="button" class="secondary" onClick={() => setCamera(undefined)}>
          Stop camera
        </button>
      ) : (
        <button type="button" onClick={() => void startReading()} disabled={disabled}>
          {startLabel}
        </button>
      )}
      {camera && <p class="hint">Reading QR codes with {camera.decoder}.</p>}
      {cameraError !== undefined && (
        <div class="notice error" role="alert">
          <p>
            The camera is not available ({cameraError}). {fallback}
          </p>
        </div>
      )}
      <video ref={video} class={camera ? 'door-video' : 'door-video off'} aria-label="Camera view" muted />
    </div>
  );
}
