/**
 * A video of QR codes for Chromium's fake camera (`--use-file-for-fake-video-capture`):
 * YUV4MPEG2, 4:2:0, each code drawn black on white with the quiet zone the QR standard
 * asks for (4 modules) and held for `holdSeconds`, a blank white gap between codes so two
 * codes are never in one frame. Y carries the picture; U and V are 128 (no colour).
 * The codes are encoded by `qrcode` at level M, as the e-tickets' are (src/mail/qr-png.ts).
 * Chromium plays the file in a loop.
 */
import { writeFile } from 'node:fs/promises';
import QRCode from 'qrcode';

interface QrVideoOptions {
  width?: number;
  height?: number;
  fps?: number;
  /** How long each code stays in view. */
  holdSeconds?: number;
  /** Blank frames between two codes. */
  gapSeconds?: number;
  /** Blank time before the first code (the page may still be starting the camera). */
  leadSeconds?: number;
}

const QUIET_ZONE_MODULES = 4;
const BLACK = 16;
const WHITE = 235;

/** The luma plane of one frame: the code centred, as large as fits in whole pixels per module. */
export function qrFrameLuma(text: string | undefined, width: number, height: number): Buffer {
  const luma = Buffer.alloc(width * height, WHITE);
  if (text === undefined) return luma;
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const side = modules.size + 2 * QUIET_ZONE_MODULES;
  const px = Math.floor((Math.min(width, height) * 0.9) / side);
  if (px < 2) throw new Error(`a ${width}×${height} frame is too small for a ${modules.size}-module code`);
  const left = Math.floor((width - side * px) / 2) + QUIET_ZONE_MODULES * px;
  const top = Math.floor((height - side * px) / 2) + QUIET_ZONE_MODULES * px;
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (!modules.get(row, col)) continue;
      for (let y = 0; y < px; y++) {
        const start = (top + row * px + y) * width + left + col * px;
        luma.fill(BLACK, start, start + px);
      }
    }
  }
  return luma;
}

/** The whole Y4M file for `codes`, in order. */
export function qrVideo(codes: string[], options: QrVideoOptions = {}): Buffer {
  const { width = 640, height = 480, fps = 10, holdSeconds = 1.5, gapSeconds = 0.5, leadSeconds = 1 } = options;
  if (width % 2 !== 0 || height % 2 !== 0) throw new Error('4:2:0 needs an even width and height');
  const chroma = Buffer.alloc((width / 2) * (height / 2), 128);
  const frameOf = (luma: Buffer) => Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma]);
  const blank = frameOf(qrFrameLuma(undefined, width, height));
  const frames: Buffer[] = [Buffer.from(`YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`)];
  const repeat = (frame: Buffer, seconds: number) => {
    for (let i = 0; i < Math.round(seconds * fps); i++) frames.push(frame);
  };
  repeat(blank, leadSeconds);
  for (const code of codes) {
    repeat(frameOf(qrFrameLuma(code, width, height)), holdSeconds);
    repeat(blank, gapSeconds);
  }
  return Buffer.concat(frames);
}

export async function writeQrVideo(file: string, codes: string[], options?: QrVideoOptions): Promise<void> {
  await writeFile(file, qrVideo(codes, options));
}
