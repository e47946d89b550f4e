/** How old the local copy is, in words (docs/door.md, "The local copy"): "12 s ago". */
export function ageOf(since: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min ago`;
}

const count = new Intl.NumberFormat('en-US');

/** "Tickets as of 12 s ago · 20,000 tickets" */
export function copyLine(syncedAt: number | null, total: number, now: number): string {
  if (syncedAt === null)
    return total === 0 ? 'Loading the tickets…' : `Loading the tickets… ${count.format(total)} so far`;
  return `Tickets as of ${ageOf(syncedAt, now)} · ${count.format(total)} ticket${total === 1 ? '' : 's'}`;
}

export const formatCount = (n: number) => count.format(n);
