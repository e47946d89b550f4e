/**
 * Reading QR codes from the device camera (docs/door.md, "Camera and decoder"):
 * getUserMedia for the back camera, then the browser's BarcodeDetector where it reads QR
 * codes, else jsQR on frames drawn into a canvas. jsQR is plain JavaScript, so the
 * console's Content-Security-Policy needs no 'wasm-unsafe-eval'. Frames are read a few
 * times a second, not at the camera's rate: a code is held up for a second or more, and
 * each read costs CPU the rest of the screen needs.
 */
import jsQR from 'jsqr';

/** The part of the Barcode Detection API used here; not in TypeScript's DOM types yet. */
interface BarcodeDetectorLike {
  detect(source: CanvasImageSource): Promise<Array<{ rawValue: string }>>;
}
interface BarcodeDetectorClass {
  new (options: { formats: string[] }): BarcodeDetectorLike;
  getSupportedFormats(): Promise<string[]>;
}

type Decoder = 'BarcodeDetector' | 'jsQR';

export interface CameraReader {
  decoder: Decoder;
  stop(): void;
}

const READ_EVERY_MS = 120;
/** Frames are scaled down to this width before jsQR reads them: enough for a code held up. */
const MAX_READ_WIDTH = 640;

async function barcodeDetector(): Promise<BarcodeDetectorLike | undefined> {
  const Detector = (globalThis as { BarcodeDetector?: BarcodeDetectorClass }).BarcodeDetector;
  if (!Detector) return undefined;
  try {
    const formats = await Detector.getSupportedFormats();
    return formats.includes('qr_code') ? new Detector({ formats: ['qr_code'] }) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the camera into `video` and calls `onCode` with each code read (repeats included). */
export async function startCamera(video: HTMLVideoElement, onCode: (text: string) => void): Promise<CameraReader> {
  const stream = await navigator.mediaDevices.getUserMedia({
    video: { facingMode: 'environment', width: { ideal: 1280 }, height: { ideal: 720 } },
    audio: false,
  });
  video.srcObject = stream;
  video.muted = true;
  video.playsInline = true;
  await video.play();

  const detector = await barcodeDetector();
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const readFrame = async (): Promise<string | undefined> => {
    if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA || video.videoWidth === 0) return undefined;
    if (detector) return (await detector.detect(video))[0]?.rawValue;
    if (!context) return undefined;
    const scale = Math.min(1, MAX_READ_WIDTH / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const image = context.getImageData(0, 0, canvas.width, canvas.height);
    return jsQR(image.data, image.width, image.height, { inversionAttempts: 'dontInvert' })?.data;
  };

  const loop = async () => {
    if (stopped) return;
    try {
      const text = await readFrame();
      if (text && !stopped) onCode(text);
    } catch {
      // A frame that cannot be read (the stream ending, a detector hiccup) is skipped.
    }
    if (!stopped) timer = setTimeout(() => void loop(), READ_EVERY_MS);
  };
  void loop();

  return {
    decoder: detector ? 'BarcodeDetector' : 'jsQR',
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const track of stream.getTracks()) track.stop();
      video.srcObject = null;
    },
  };
}
