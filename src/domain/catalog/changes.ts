/**
 * In-process notices that what an event's detail shows has changed, given once the
 * change has committed. Readers that keep a copy of the detail (the HTTP layer's
 * response cache, docs/catalog.md) subscribe; the domain never knows who listens.
 * Only this process hears them: other API instances rely on their copy's short TTL.
 */
import { afterCommit, type Executor } from '../../db/transaction.ts';

type Listener = (eventId: string) => void;

const listeners = new Set<Listener>();

/** Calls listener with the event id after each committed change; returns the unsubscribe. */
export function onEventDetailChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Announces, once db's transaction commits (at once outside a transaction), that the
 * event's detail changed. Every writer of what the detail shows (the event, its ticket
 * types, prices and schedule) calls it in the transaction of the change.
 */
export function eventDetailChanged(db: Executor, eventId: string): void {
  afterCommit(db, () => {
    for (const listener of listeners) listener(eventId);
  });
}
