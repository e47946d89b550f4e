/**
 * An in-process nudge from the fan-out to the delivery worker, so a delivery queued by
 * the API in this process is sent within milliseconds instead of at the next poll.
 * The nudge may come before the queuing transaction commits; the worker then finds
 * nothing yet and its short poll picks the row up. Other processes rely on the poll.
 */
type Listener = () => void;

const listeners = new Set<Listener>();

export function onDeliveriesQueued(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notifyDeliveriesQueued(): void {
  for (const listener of listeners) listener();
}
