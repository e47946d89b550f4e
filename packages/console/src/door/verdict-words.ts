/**
 * The words of a door verdict (docs/door.md, "What the screen shows"), shared by the
 * door screen signed in as a person (outcome.ts) and the door device app
 * (packages/console/src/device/): the same refusal reads the same at every gate.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * A time in the event's zone, the zone named ("21:04:05 CEST"), as the door reads it. The
 * formatter is made once per zone and locale: making one costs far more than using it,
 * and a screen formats a time for every line of its log on every render.
 */
export function formatTimeAt(iso: string, timeZone: string, locale?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const key = `${locale ?? ''}|${timeZone}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'short',
    });
    formats.set(key, format);
  }
  return format.format(at);
}

type RefusalWord = 'already_checked_in' | 'unpaid' | 'refunded' | 'cancelled' | 'other_performance' | 'unknown';

/** The big line of a refusal. */
export const REFUSAL_HEADLINES: Readonly<Record<RefusalWord, string>> = {
  already_checked_in: 'Already checked in',
  unpaid: 'Not paid',
  refunded: 'Refunded',
  cancelled: 'Cancelled',
  other_performance: 'Wrong performance',
  unknown: 'Unknown ticket',
};

/** The sentences under the headline. */
export const sentences = {
  /** `by`: the gate (a door device) that admitted it, when known. */
  checkedInAt: (ticketNo: string, time: string, by?: string) =>
    `Ticket ${ticketNo} was checked in at ${time}${by === undefined ? '' : ` by ${by}`}.`,
  refunded: (ticketNo: string) => `Ticket ${ticketNo} was refunded.`,
  cancelled: (ticketNo: string) => `Ticket ${ticketNo} was cancelled.`,
  otherPerformance: (ticketNo: string, performance: string) => `Ticket ${ticketNo} is for ${performance}.`,
  unknown: (code: string) => `No ticket has the code ${code}.`,
};
