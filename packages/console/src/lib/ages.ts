/**
 * How long ago, and how long left, as a person reads them on the Devices screen
 * (docs/console.md, "Devices"): "12 s ago", "4 min ago"; "10 minutes".
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
