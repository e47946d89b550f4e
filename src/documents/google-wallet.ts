/**
 * An order's "Add to Google Wallet" link (docs/tickets.md, "Google Wallet"): Google's
 * save URL, https://pay.google.com/gp/v/save/<jwt>, the JWT signed RS256 with the
 * organizer's service-account key and carrying the event-ticket classes and objects
 * themselves, so Google creates them when the buyer taps the link and nothing is sent to
 * Google's API beforehand.
 *
 * A pure function of the documents' input and the signer (src/documents/types.ts), so the
 * mail's render threads can make it like every other document.
 */
import { currencyMinorDigits } from '../i18n/index.ts';
import type { DocumentTicket, OrderDocumentInput } from './types.ts';
import { wallClockIn } from './wall-clock.ts';

const SAVE_URL = 'https://pay.google.com/gp/v/save/';

/** The organizer's Google Wallet settings with the private key opened (src/documents/google-signer.ts). */
export interface GoogleWalletSigner {
  issuerId: string;
  serviceAccountEmail: string;
  /** The service account's private key, PKCS #8 PEM. */
  privateKeyPem: string;
  /** The key's private_key_id: the JWT header's `kid`, so Google picks the right public key. */
  keyId: string;
}

interface LocalizedString {
  defaultValue: { language: string; value: string };
}

/** The `payload` claim: what Google creates when the link is opened. */
interface GoogleWalletPayload {
  eventTicketClasses: Array<{
    id: string;
    issuerName: string;
    eventName: LocalizedString;
    venue?: { name: LocalizedString; address: LocalizedString };
    dateTime: { start: string };
    reviewStatus: 'UNDER_REVIEW';
  }>;
  eventTicketObjects: Array<{
    id: string;
    classId: string;
    state: 'ACTIVE';
    barcode: { type: 'QR_CODE'; value: string; alternateText: string };
    ticketHolderName?: string;
    ticketNumber: string;
    ticketType: LocalizedString;
    faceValue: { micros: number; currencyCode: string };
  }>;
}

/** The save link of every ticket of the order, in one JWT. */
export async function googleWalletSaveUrl(
  documents: OrderDocumentInput,
  signer: GoogleWalletSigner,
  issuedAt: Date,
): Promise<string> {
  // jose loads with the first save link (docs/architecture.md, "Start-up").
  const { importPKCS8, SignJWT } = await import('jose');
  const key = await importPKCS8(signer.privateKeyPem, 'RS256');
  const jwt = await new SignJWT({ typ: 'savetowallet', origins: [], payload: googleWalletPayload(documents, signer) })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signer.keyId })
    .setIssuer(signer.serviceAccountEmail)
    .setAudience('google')
    .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
    .sign(key);
  return SAVE_URL + jwt;
}

function googleWalletPayload(documents: OrderDocumentInput, signer: GoogleWalletSigner): GoogleWalletPayload {
  const text = (value: string): LocalizedString => ({ defaultValue: { language: documents.language, value } });
  // A class is what tickets share: one per performance, not per event, because it holds the
  // date, and the tickets of another performance of the same event must not show this one's.
  const classId = (ticket: DocumentTicket) => `${signer.issuerId}.${ticket.performanceId}`;
  const performances = new Map<string, DocumentTicket>();
  for (const ticket of documents.tickets) {
    if (!performances.has(ticket.performanceId)) performances.set(ticket.performanceId, ticket);
  }
  const micros = 10 ** (6 - currencyMinorDigits(documents.currency));
  return {
    eventTicketClasses: [...performances.values()].map((ticket) => ({
      id: classId(ticket),
      issuerName: documents.organizerName,
      eventName: text(ticket.eventTitle),
      // Google requires an address with a name; Marquee keeps a venue's name only, which is
      // the best address it has (docs/tickets.md, "Google Wallet").
      ...(ticket.venueName ? { venue: { name: text(ticket.venueName), address: text(ticket.venueName) } } : {}),
      dateTime: { start: isoInZone(ticket.performanceStartsAt, ticket.eventTimeZone) },
      reviewStatus: 'UNDER_REVIEW' as const,
    })),
    eventTicketObjects: documents.tickets.map((ticket) => ({
      id: `${signer.issuerId}.${ticket.id}`,
      classId: classId(ticket),
      state: 'ACTIVE' as const,
      barcode: { type: 'QR_CODE' as const, value: ticket.serialNo, alternateText: ticket.serialNo },
      ...(ticket.holderName.trim() ? { ticketHolderName: ticket.holderName } : {}),
      ticketNumber: ticket.ticketNo,
      ticketType: text(ticket.ticketTypeName),
      faceValue: { micros: ticket.priceMinor * micros, currencyCode: documents.currency },
    })),
  };
}

/**
 * `2027-03-12T19:30:00+01:00`: the instant as the event's wall clock with its offset, which
 * is how Google shows a start without converting it to the phone's zone.
 */
function isoInZone(at: Date, timeZone: string): string {
  const c = wallClockIn(at, timeZone);
  return `${c.year}-${c.month}-${c.day}T${c.hour}:${c.minute}:${c.second}${c.offset}`;
}
