/**
 * Money and time as a person reads them (docs/console.md, "Money and dates"): amounts in
 * their currency's minor units (JPY has none, EUR two, KWD three), times in the event's
 * time zone with the zone named.
 */
import { fromZonedTime } from 'date-fns-tz';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** `locale` undefined: the browser's language, as everywhere in the console. */
function moneyFormat(currency: string, locale?: string): Intl.NumberFormat {
  const key = `${locale ?? ''}|${currency}`;
  let format = moneyFormats.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    moneyFormats.set(key, format);
  }
  return format;
}

/** The number of minor units of a currency, as ISO 4217 (and so Intl) defines it. */
export function minorDigits(currency: string): number {
  return moneyFormat(currency).resolvedOptions().maximumFractionDigits ?? 2;
}

/** `1250` EUR → "€12.50"; `1250` JPY → "¥1,250". */
export function money(minor: number, currency: string, locale?: string): string {
  return moneyFormat(currency, locale).format(minor / 10 ** minorDigits(currency));
}

/** A major-unit amount typed by a person ("12.5") as minor units, or undefined when it is not one. */
export function parseMoney(text: string, currency: string): number | undefined {
  const digits = minorDigits(currency);
  const pattern = digits === 0 ? /^\d+$/ : new RegExp(`^\\d+(?:\\.\\d{1,${digits}})?$`);
  const trimmed = text.trim();
  if (!pattern.test(trimmed)) return undefined;
  const [whole = '0', fraction = ''] = trimmed.split('.');
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** The hour and minute (and second) of a time shown. */
const clockParts = (seconds: boolean): Intl.DateTimeFormatOptions => ({
  hour: '2-digit',
  minute: '2-digit',
  ...(seconds ? { second: '2-digit' } : {}),
});

/** The instant in `timeZone` with these parts, the zone named. */
const inZone = (iso: string, timeZone: string, locale: string | undefined, parts: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(locale, { ...parts, timeZone, timeZoneName: 'short' }).format(new Date(iso));

/**
 * "Dec 5, 2026, 08:00 PM GMT+1": the instant in `timeZone`, the zone named; `seconds`
 * adds them (the audit log tells apart entries a moment apart).
 */
export function dateTime(iso: string, timeZone: string, locale?: string, { seconds = false } = {}): string {
  return inZone(iso, timeZone, locale, { year: 'numeric', month: 'short', day: 'numeric', ...clockParts(seconds) });
}

/** "09:04 PM GMT+1": the time of day of `iso` in `timeZone`, the zone named. */
export function timeOfDay(iso: string, timeZone: string, locale?: string, { seconds = false } = {}): string {
  return inZone(iso, timeZone, locale, clockParts(seconds));
}

/**
 * The wall-clock value of a `datetime-local` input, read in `timeZone`, as an ISO instant.
 * The event's zone, not the browser's, is what the organizer means by "20:00".
 */
export function zonedInputToIso(local: string, timeZone: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local)) return undefined;
  return fromZonedTime(local, timeZone).toISOString();
}
