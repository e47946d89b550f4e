/** How often and when a mail job is tried again (docs/orders.md, "E-mail"). */

/** Delay before retry n (1-based), after a failed attempt. */
export const EMAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 12 * 3_600_000];
/** The first attempt and one per retry delay; then the job is `failed`. */
export const EMAIL_MAX_ATTEMPTS = EMAIL_RETRY_DELAYS_MS.length + 1;
