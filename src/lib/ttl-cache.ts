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
 *
 * Misses are loaded once (load()): when an entry expires under concurrent readers, they
 * would all miss at once and each load the same row. A miss joins a load of the same
 * flight key that is already running, provided no invalidation happened since that load
 * began; so the joiner's answer is never older than a load of its own would have been
 * allowed to be (the cache serves values up to a TTL old anyway), and a reader that comes
 * after a committed change starts a fresh load.
 */
import type { Clock } from './clock.ts';

interface TtlCacheOptions {
  /** How long an entry is served after it was stored. */
  ttlMs: number;
  /** At most this many entries; storing one more evicts the least recently used. */
  maxEntries: number;
  clock: Clock;
}

interface Flight<V> {
  /** The cache's generation when the load began: joinable only while it is unchanged. */
  generation: number;
  promise: Promise<V | undefined>;
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
  readonly #flights = new Map<string, Flight<V>>();
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

  /**
   * The live value of `key`, or what `loader` loads, stored for the TTL (unless an
   * invalidation happened meanwhile; undefined is never stored). Concurrent misses with the
   * same `flightKey` (default: the key) share one load while no invalidation separates
   * them; a loader's rejection reaches every caller that shared it. Give callers whose
   * loads may answer differently (another tenant's, say) different flight keys.
   */
  load(key: string, loader: () => Promise<V | undefined>, flightKey: string = key): V | Promise<V | undefined> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const running = this.#flights.get(flightKey);
    if (running !== undefined && running.generation === this.#generation) return running.promise;
    const flight = { generation: this.#generation } as Flight<V>;
    flight.promise = this.#loadAndStore(key, loader, flight.generation).finally(() => {
      if (this.#flights.get(flightKey) === flight) this.#flights.delete(flightKey);
    });
    this.#flights.set(flightKey, flight);
    return flight.promise;
  }

  async #loadAndStore(key: string, loader: () => Promise<V | undefined>, generation: number) {
    const value = await loader();
    if (value !== undefined) this.set(key, value, generation);
    return value;
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
