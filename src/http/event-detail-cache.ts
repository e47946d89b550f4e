/**
 * The serialized GET /v1/events/{id} body per event, in-process, for 1 s on the injected
 * clock (docs/catalog.md). Keyed by event id; the entry remembers its organizer and is
 * served only to that organizer (another organizer's request misses, loads, and gets the
 * 404). Entries are dropped when the domain announces a committed change to the event
 * (onEventDetailChanged); a load in flight at that moment is not stored (the cache's
 * generation fence, src/lib/ttl-cache.ts).
 */
import { onEventDetailChanged } from '../domain/catalog/changes.ts';
import type { Clock } from '../lib/clock.ts';
import { TtlCache } from '../lib/ttl-cache.ts';

/** What Fastify sends a serialized object as; a cached body goes out under the same type. */
export const EVENT_DETAIL_CONTENT_TYPE = 'application/json; charset=utf-8';

export type EventDetailCache = TtlCache<{ organizerId: string; body: Buffer }>;

const EVENT_DETAIL_TTL_MS = 1000;
const EVENT_DETAIL_MAX_ENTRIES = 10_000;

/** A cache that forgets an event on each committed change; close() stops listening. */
export function createEventDetailCache(clock: Clock): { cache: EventDetailCache; close: () => void } {
  const cache: EventDetailCache = new TtlCache({
    ttlMs: EVENT_DETAIL_TTL_MS,
    maxEntries: EVENT_DETAIL_MAX_ENTRIES,
    clock,
  });
  const close = onEventDetailChanged((eventId) => cache.delete(eventId));
  return { cache, close };
}
