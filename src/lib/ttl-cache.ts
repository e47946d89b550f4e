/**
 * A small in-process cache: entries live for a fixed TTL on the injected clock, the
 * count is bounded (least recently used evicted first: a Map keeps insertion order, and
 * a hit moves its entry to the end), and invalidation is safe against a read that raced
 * it.
 *
 * Recency is kept cheaply: a hit moves its entry to the end only when it sits in the
 * older half of the order (maxEntries/2 or more stores or moves ago). So a hot key is
 * not re-inserted on every hit (a Map delete+set per request churns the table), and an
 * entry used at least once per maxEntries/2 stores is never the one evicted.
 *
 * The race: a reader loads a value from the database, a writer commits a change and
 * invalidates, then the reader stores the value it loaded before the commit, which
 * would serve stale data for a whole TTL. So every invalidation bumps `generation`; a
 * reader takes `generation` BEFORE it loads and passes it to set(), which stores nothing
 * when any invalidation happened in between. (One counter for the whole cache: an
 * unrelated invalidation only costs the racing reader its store, never correctness.)
 * Writers invalidate AFTER their change has committed; see docs/architecture.md.
 */
import type { Clock } from './clock.ts';

interface TtlCacheOptions {
  /** How long an entry is served after it was stored. */
  ttlMs: number;
  /** At most this many entries; storing one more evicts the least recently used. */
  maxEntries: number;
  clock: Clock;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
  /** The cache's #tick when the entry was stored or last moved to the end. */
  tick: number;
}

export class TtlCache<V> {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry<V>>();
  #generation = 0;
  /** Counts stores and moves: the position of the end of the order. */
  #tick = 0;

  constructor(options: TtlCacheOptions) {
    if (!(options.ttlMs > 0)) throw new Error('TtlCache: ttlMs must be positive');
    if (!(options.maxEntries >= 1)) throw new Error('TtlCache: maxEntries must be at least 1');
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries;
    this.#clock = options.clock;
  }

  /** Bumped by every invalidation; take it before loading, hand it to set(). */
  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The live value, or undefined (absent or expired; an expired entry is dropped). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now().getTime()) {
      this.#entries.delete(key);
      return undefined;
    }
    // Most recently used goes last, so eviction takes the first key.
    if (this.#tick - entry.tick >= this.maxEntries / 2) {
      this.#entries.delete(key);
      entry.tick = ++this.#tick;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /**
   * Stores the value for the TTL, unless `loadedAt` (the generation taken before the
   * value was loaded) is older than the current one: then an invalidation happened while
   * the value was loaded, it may predate the change, and nothing is stored. Returns
   * whether the value was stored.
   */
  set(key: string, value: V, loadedAt?: number): boolean {
    if (loadedAt !== undefined && loadedAt !== this.#generation) return false;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.#clock.now().getTime() + this.ttlMs, tick: ++this.#tick });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    return true;
  }

  /** Drops the entry (if any) and fences off every load in flight. */
  delete(key: string): void {
    this.#generation++;
    this.#entries.delete(key);
  }

  /** Drops every entry the predicate picks and fences off every load in flight; returns how many. */
  deleteWhere(predicate: (value: V, key: string) => boolean): number {
    this.#generation++;
    let dropped = 0;
    for (const [key, entry] of this.#entries) {
      if (predicate(entry.value, key)) {
        this.#entries.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
