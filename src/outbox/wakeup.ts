/**
 * An in-process nudge from whatever queued webhook deliveries (the fan-out of
 * domain-events.ts, a redelivery or test ping of src/webhooks/deliveries.ts) to the
 * delivery worker (src/webhooks/pump.ts listens), so a delivery queued by the API in this
 * process is sent within milliseconds instead of at the next poll. It lives in the
 * outbox, below both, so that the fan-out can call it without importing src/webhooks.
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
