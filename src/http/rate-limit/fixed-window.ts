/**
 * In-process fixed-window counters, the memory store of the rate limiter.
 *
 * A key's window starts at its first request and lasts `windowMs`; every request in it
 * counts, denied ones included, and nothing moves the window (the same rules as the Redis
 * store). It is synchronous on purpose: a promise-based store (two consumes per request)
 * adds awaits to every request for a counter that has nothing to await (bench/README.md).
 * Expired windows are swept once per window length, so memory stays bounded by the keys
 * seen in the last two windows.
 */
interface WindowHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the current window ends. */
  msLeft: number;
}

export class FixedWindowCounters {
  private readonly windows = new Map<string, { endsAt: number; count: number }>();
  private nextSweepAt = 0;

  constructor(private readonly windowMs: number) {}

  hit(key: string, now: number = Date.now()): WindowHit {
    if (now >= this.nextSweepAt) this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { endsAt: now + this.windowMs, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, msLeft: window.endsAt - now };
  }

  /** The count a hit now would reach, without counting it. */
  peek(key: string, now: number = Date.now()): number {
    const window = this.windows.get(key);
    return window === undefined || window.endsAt <= now ? 1 : window.count + 1;
  }

  /** Keys with a window not yet over (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.nextSweepAt = now + this.windowMs;
  }
}
