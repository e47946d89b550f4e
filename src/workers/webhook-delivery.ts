/**
 * The webhook delivery worker. A continuous pump: it keeps up to MAX_IN_FLIGHT sends
 * going, claiming due deliveries (FOR UPDATE SKIP LOCKED, leased) whenever a slot is
 * free, so one slow endpoint (at most PER_ENDPOINT_IN_FLIGHT of its deliveries at once,
 * each bounded by WEBHOOK_TIMEOUT) never holds up the others. New work is noticed at
 * once through the in-process wakeup, else by a short poll. stop() stops claiming and
 * drains the sends in flight; a worker that dies instead leaves leases that run out,
 * and the rows are claimed again.
 *
 * deliverDue() is the same core for tests: claim, send and record until nothing is
 * due (or `limit` attempts were made), with whatever clock the deps carry.
 */
import { claimDeliveries, attemptDelivery, type DeliveryOutcome, type DispatchContext } from '../domain/webhooks/dispatch.ts';
import { createWebhookSender, type WebhookSender } from '../domain/webhooks/sender.ts';
import { systemResolver } from '../domain/webhooks/url-vetting.ts';
import { onDeliveriesQueued } from '../domain/webhooks/wakeup.ts';
import { releaseDeliveries, type ClaimedDelivery } from '../db/repositories/webhooks.ts';
import type { JobFactory, WorkerDeps } from './index.ts';

export const MAX_IN_FLIGHT = 16;
export const POLL_INTERVAL_MS = 200;
/** Delay after a wakeup, so the queuing transaction has usually committed. */
const WAKEUP_DELAY_MS = 5;

export function createSenderFor(deps: WorkerDeps): WebhookSender {
  return createWebhookSender({
    allowLoopback: deps.config.webhookAllowLoopback,
    resolver: deps.webhookResolver ?? systemResolver,
    timeoutMs: deps.config.webhookTimeoutMs,
    ...(deps.webhookCa === undefined ? {} : { ca: deps.webhookCa }),
  });
}

function contextFor(deps: WorkerDeps, sender: WebhookSender): DispatchContext {
  return { db: deps.db, clock: deps.clock, config: deps.config, sender };
}

/**
 * Makes every due attempt (up to `limit`), MAX_IN_FLIGHT at a time, and returns the
 * outcomes. Deliveries that become due because of these attempts (retries) are not due
 * yet on an unmoved clock, so this ends.
 */
export async function deliverDue(deps: WorkerDeps, limit = 1000, sender?: WebhookSender): Promise<DeliveryOutcome[]> {
  const own = sender ?? createSenderFor(deps);
  const ctx = contextFor(deps, own);
  const outcomes: DeliveryOutcome[] = [];
  try {
    while (outcomes.length < limit) {
      const rows = await claimDeliveries(ctx, Math.min(MAX_IN_FLIGHT, limit - outcomes.length));
      if (rows.length === 0) break;
      outcomes.push(...(await Promise.all(rows.map((row) => attemptDelivery(ctx, row)))));
    }
  } finally {
    if (!sender) await own.close();
  }
  return outcomes;
}

export const webhookDeliveryJob: JobFactory = (deps) => {
  const sender = createSenderFor(deps);
  const ctx = contextFor(deps, sender);
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let nudge: (() => void) | null = null;

  const signal = () => {
    const resolve = nudge;
    nudge = null;
    resolve?.();
  };
  const unsubscribe = onDeliveriesQueued(() => setTimeout(signal, WAKEUP_DELAY_MS));

  /** Waits for a wakeup, a finished send, stop(), or the poll interval. */
  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        nudge = null;
        resolve();
      }, POLL_INTERVAL_MS);
      nudge = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const start = (row: ClaimedDelivery) => {
    const work: Promise<void> = attemptDelivery(ctx, row)
      .then(() => undefined)
      .catch((err: unknown) => deps.logger.error({ err, deliveryId: row.id }, 'webhook delivery attempt failed to record'))
      .finally(() => {
        inFlight.delete(work);
        signal();
      });
    inFlight.add(work);
  };

  const loop = (async () => {
    while (!stopping) {
      let claimed = 0;
      const free = MAX_IN_FLIGHT - inFlight.size;
      if (free > 0) {
        try {
          const rows = await claimDeliveries(ctx, free);
          claimed = rows.length;
          if (stopping) {
            // Stop arrived mid-claim: hand the rows back rather than start them.
            await releaseDeliveries(ctx.db, rows.map((r) => r.id));
            break;
          }
          rows.forEach(start);
        } catch (err) {
          deps.logger.error({ err }, 'claiming webhook deliveries failed');
        }
      }
      if (!stopping && (claimed === 0 || inFlight.size >= MAX_IN_FLIGHT)) await idle();
    }
  })();

  return {
    name: 'webhook-delivery',
    async stop() {
      stopping = true;
      signal();
      await loop;
      await Promise.all(inFlight);
      unsubscribe();
      await sender.close();
    },
  };
};
