/**
 * The QR code of a ticket's serial as a PNG, encoded here rather than by `qrcode`'s PNG
 * renderer.
 *
 * `qrcode` computes the symbol (the module matrix) cheaply; its PNG output is what costs:
 * it paints every pixel as 32-bit RGBA through `pngjs`. A QR code has two colours, so this
 * writes a 1-bit greyscale PNG instead: one module row becomes one scanline, repeated
 * `QR_MODULE_PX` times, and zlib compresses the repetition to almost nothing. Same
 * symbol, same pixel size, a fraction of the work and of the bytes (docs/orders.md,
 * "E-mail").
 */
import QRCode from 'qrcode';
import { crc32, deflateSync } from 'node:zlib';

/**
 * Level M (15 % of the symbol recoverable) survives print and screen wear. A 32-character
 * serial in alphanumeric mode fits version 2 (25 × 25 modules) at level L and at level M
 * alike, so a lower level would not make the code any smaller.
 */
const QR_ERROR_CORRECTION = 'M';
/** Pixels per module: whole pixels keep the edges sharp; about 2× the displayed size for print. */
export const QR_MODULE_PX = 12;
/** The quiet zone the QR standard asks for around the symbol, in modules. */
export const QR_QUIET_ZONE_MODULES = 4;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function qrCodePng(serialNo: string): Buffer {
  const { modules } = QRCode.create(serialNo, { errorCorrectionLevel: QR_ERROR_CORRECTION });
  const modulesPerSide = modules.size + 2 * QR_QUIET_ZONE_MODULES;
  const sidePx = modulesPerSide * QR_MODULE_PX;
  const rowBytes = 1 + Math.ceil(sidePx / 8); // filter byte (0: none) + 1 bit per pixel

  // Bit 1 is white, 0 black. Start all white; the quiet zone and padding bits stay so.
  const scanlines = Buffer.alloc(rowBytes * sidePx);
  const scanline = Buffer.alloc(rowBytes);
  for (let row = 0; row < modules.size; row++) {
    scanline.fill(0xff, 1);
    scanline[0] = 0;
    for (let col = 0; col < modules.size; col++) {
      if (!modules.get(row, col)) continue;
      const firstPx = (col + QR_QUIET_ZONE_MODULES) * QR_MODULE_PX;
      for (let px = firstPx; px < firstPx + QR_MODULE_PX; px++) scanline[1 + (px >> 3)]! &= ~(0x80 >> (px & 7));
    }
    const firstLine = (row + QR_QUIET_ZONE_MODULES) * QR_MODULE_PX;
    for (let line = firstLine; line < firstLine + QR_MODULE_PX; line++) scanline.copy(scanlines, line * rowBytes);
  }
  // Rows of the quiet zone: the filter byte 0 followed by white.
  for (let line = 0; line < sidePx; line++) {
    const module = Math.floor(line / QR_MODULE_PX) - QR_QUIET_ZONE_MODULES;
    if (module < 0 || module >= modules.size) scanlines.fill(0xff, line * rowBytes + 1, (line + 1) * rowBytes);
  }

  const header = Buffer.alloc(13);
  header.writeUInt32BE(sidePx, 0);
  header.writeUInt32BE(sidePx, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // colour type: greyscale
  // compression, filter and interlace methods: 0 (the only defined ones, no interlace)
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(4 + typeAndData.length + 4); // length, type + data, CRC
  out.writeUInt32BE(data.length, 0);
  typeAndData.copy(out, 4);
  out.writeUInt32BE(crc32(typeAndData), 4 + typeAndData.length);
  return out;
}
