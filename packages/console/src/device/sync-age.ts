/** How old the local copy is, in words (docs/door.md, "The local copy"): "12 s ago". */
export function ageOf(since: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min ago`;
}

/**
 * The age in minutes, for the offline banner: it is an alert, read out again whenever its
 * words change, so they change once a minute, not every second.
 */
export function coarseAgeOf(since: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - since) / 60_000);
  if (minutes === 0) return 'less than a minute ago';
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min ago`;
}

const count = new Intl.NumberFormat('en-US');

/** "Tickets as of 12 s ago · 20,000 tickets" */
export function copyLine(syncedAt: number | null, total: number, now: number): string {
  if (syncedAt === null)
    return total === 0 ? 'Loading the tickets…' : `Loading the tickets… ${count.format(total)} so far`;
  return `Tickets as of ${ageOf(syncedAt, now)} · ${count.format(total)} ticket${total === 1 ? '' : 's'}`;
}

export const formatCount = (n: number) => count.format(n);
