/**
 * An Apple Wallet pass for one ticket (docs/tickets.md, "Apple Wallet"): an eventTicket
 * .pkpass signed with the organizer's pass certificate. Pure: the signer comes in loaded
 * (src/documents/apple-signer.ts), so the mail render threads can run it.
 *
 * The barcode is the ticket's serial, as on the PDF and in the e-mail, so the gate
 * scanners read a pass like any other ticket. Labels are in the document's language.
 */
import { crc32, deflateSync } from 'node:zlib';
import { translator } from '../i18n/index.ts';
import type { DocumentTicket, OrderDocumentInput } from './types.ts';

export interface AppleSigner {
  passTypeIdentifier: string;
  teamIdentifier: string;
  certificatePem: string;
  privateKeyPem: string;
  wwdrCertificatePem: string;
  backgroundColor: string | null;
  foregroundColor: string | null;
  labelColor: string | null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A square of one colour as an 8-bit RGB PNG: Wallet requires an icon, and shows it small. */
function solidPng(side: number, [r, g, b]: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: RGB
  const row = Buffer.alloc(1 + side * 3);
  for (let x = 0; x < side; x += 1) row.set([r, g, b], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: side }, () => row));
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(pixels)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `rgb(r, g, b)` or `#rrggbb` as three bytes; undefined when it is neither. */
function parseColour(text: string): [number, number, number] | undefined {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(text.trim());
  if (hex) return [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16), parseInt(hex[3]!, 16)];
  const rgb = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i.exec(text.trim());
  if (!rgb) return undefined;
  const parts = [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] as [number, number, number];
  return parts.every((part) => part <= 255) ? parts : undefined;
}

/** Apple takes colours as `rgb(r, g, b)`. */
export function appleColour(text: string): string | undefined {
  const parts = parseColour(text);
  return parts ? `rgb(${parts.join(', ')})` : undefined;
}

const DEFAULT_BACKGROUND: [number, number, number] = [255, 255, 255];

/** The configured colours Apple understands, as pass.json keys. */
function passColours(signer: AppleSigner): Record<string, string> {
  const colours: Record<string, string> = {};
  for (const [key, value] of [
    ['backgroundColor', signer.backgroundColor],
    ['foregroundColor', signer.foregroundColor],
    ['labelColor', signer.labelColor],
  ] as const) {
    const colour = value ? appleColour(value) : undefined;
    if (colour) colours[key] = colour;
  }
  return colours;
}

export async function renderApplePass(
  doc: OrderDocumentInput,
  ticket: DocumentTicket,
  signer: AppleSigner,
): Promise<Buffer> {
  // passkit-generator (with joi and node-forge) loads with the first pass (docs/architecture.md, "Start-up").
  const { PKPass } = await import('passkit-generator');
  const tr = translator(doc.language);
  const background = (signer.backgroundColor && parseColour(signer.backgroundColor)) || DEFAULT_BACKGROUND;
  const icon = solidPng(29, background);
  const icon2x = solidPng(58, background);
  const colours = passColours(signer);
  const pass = new PKPass(
    {
      'icon.png': icon,
      'icon@2x.png': icon2x,
      'logo.png': solidPng(50, background),
      'logo@2x.png': solidPng(100, background),
    },
    {
      wwdr: signer.wwdrCertificatePem,
      signerCert: signer.certificatePem,
      signerKey: signer.privateKeyPem,
    },
    {
      formatVersion: 1,
      passTypeIdentifier: signer.passTypeIdentifier,
      teamIdentifier: signer.teamIdentifier,
      serialNumber: ticket.id,
      organizationName: doc.organizerName,
      description: tr.t('wallet.apple.description', { event: ticket.eventTitle }),
      logoText: doc.organizerName,
      ...colours,
    },
  );
  pass.type = 'eventTicket';
  pass.primaryFields.push({ key: 'event', label: tr.t('ticket.event'), value: ticket.eventTitle });
  pass.secondaryFields.push({
    key: 'date',
    label: tr.t('ticket.date'),
    value: tr.dateTime(ticket.performanceStartsAt, ticket.eventTimeZone),
  });
  if (ticket.venueName) {
    pass.secondaryFields.push({ key: 'venue', label: tr.t('ticket.venue'), value: ticket.venueName });
  }
  pass.auxiliaryFields.push(
    { key: 'type', label: tr.t('ticket.type'), value: ticket.ticketTypeName },
    { key: 'holder', label: tr.t('ticket.holder'), value: ticket.holderName },
  );
  pass.backFields.push({ key: 'number', label: tr.t('ticket.number'), value: ticket.ticketNo });
  pass.backFields.push({ key: 'order', label: tr.t('ticket.order'), value: doc.orderNo });
  pass.setBarcodes({
    format: 'PKBarcodeFormatQR',
    message: ticket.serialNo,
    messageEncoding: 'iso-8859-1',
    altText: ticket.ticketNo,
  });
  pass.setRelevantDate(ticket.performanceStartsAt);
  return pass.getAsBuffer();
}
