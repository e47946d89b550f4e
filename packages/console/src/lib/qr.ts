/**
 * A ticket's QR code, drawn in the browser with `qrcode`: it holds the ticket's
 * `serial_no` at error correction level M with the standard 4-module quiet zone, the same
 * symbol as the e-ticket's (src/mail/qr-png.ts), so the door scans a printed ticket and an
 * e-mailed one alike. An SVG data URL: the page's CSP allows `img-src data:`.
 */
import QRCode from 'qrcode';

export async function qrDataUrl(serialNo: string): Promise<string> {
  const svg = await QRCode.toString(serialNo, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
