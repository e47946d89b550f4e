/**
 * How long ago, and a time of day, as a person reads them on the Devices screen
 * (docs/console.md, "Devices"): "12 s ago", "4 min ago"; "09:04 PM GMT+1" in a zone.
 */

/** The time since `iso` at `now` (ms): seconds under a minute, minutes under an hour, then hours, then days. */
export function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** The whole minutes left until `iso` at `now`, rounded up: a code valid 9 min 40 s says "10 minutes". */
export function minutesLeft(iso: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - now) / 60_000));
}

/** "09:04 PM GMT+1": the time of day of `iso` in `timeZone`, the zone named. */
export function timeOfDay(iso: string, timeZone: string, locale?: string, { seconds = false } = {}): string {
  return new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    timeZone,
    timeZoneName: 'short',
  }).format(new Date(iso));
}
