/**
 * What every document a buyer carries is made from (docs/tickets.md): the PDF tickets, the
 * Apple Wallet passes, the Google Wallet link, the calendar files and the e-ticket mail
 * itself. Plain data, read from the database by src/documents/load.ts, so
 * each renderer is a pure function that tests can call without fixtures and that the
 * render threads (src/mail/render-pool.ts) can run.
 */
import type { Language } from '../i18n/index.ts';

export type PaperSize = 'a4' | 'letter';

export interface DocumentTicket {
  id: string;
  ticketNo: string;
  /** What the gate scanner reads: the QR code's and the barcode's content. */
  serialNo: string;
  eventId: string;
  eventTitle: string;
  performanceId: string;
  performanceStartsAt: Date;
  performanceEndsAt: Date;
  /** The event's IANA zone: times are shown where the event happens, the zone named. */
  eventTimeZone: string;
  venueName: string | null;
  ticketTypeName: string;
  /** What the ticket cost, fees and taxes included, in the order's currency's minor unit. */
  priceMinor: number;
  holderName: string;
}

export interface OrderDocumentInput {
  /** The language every word is in (src/i18n): the event's, else the organizer's, else English. */
  language: Language;
  organizerName: string;
  orderId: string;
  orderNo: string;
  /** ISO 4217 code of every price. */
  currency: string;
  paperSize: PaperSize;
  tickets: DocumentTicket[];
}
