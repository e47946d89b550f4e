/**
 * The webhook delivery worker: a continuous pump that keeps sends in flight while claims
 * and records happen beside them, off the sends' path.
 *
 * - Claims take up to CLAIM_BATCH due rows at once (FOR UPDATE SKIP LOCKED, leased), at
 *   most PER_ENDPOINT_LEASED per endpoint, into a local queue per endpoint.
 * - Sends start from those queues as slots free up: at most MAX_IN_FLIGHT in all,
 *   WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZER per organizer and PER_ENDPOINT_IN_FLIGHT per
 *   endpoint, organizers taken in turn and each organizer's endpoints in turn, so an
 *   organizer with slow or dead endpoints (each send bounded by WEBHOOK_TIMEOUT) holds
 *   at most its share of the slots and never holds up another organizer's sends.
 * - Finished sends are recorded in groups (group commit): while one group's statement
 *   runs, the next group accumulates, and while sends are still finishing a small group
 *   waits a few milliseconds for more. See recordAttempts() for what one group costs.
 * - A queued row is started only while it is fresh: claimed less than QUEUE_MAX_WAIT_MS
 *   ago (so an endpoint's url, secret and status are at most that old when used) and
 *   with enough of its lease left for a whole attempt plus its record. Otherwise it is
 *   handed back (only if we still hold its lease) and claimed again later.
 * - An attempt is signed with its endpoint's url, secret and status as they are when
 *   it starts, so no attempt that starts after a rotate_secret committed uses the old
 *   secret, and a row whose endpoint was disabled or deleted since its claim is handed
 *   back. On PostgreSQL the endpoint guard (src/db/repositories/webhook-endpoint-guard.ts) holds
 *   a lock that keeps every endpoint unchanged for 50 ms at a time, on a connection of
 *   its own, and attempts start from what it read under that lock with no query; a
 *   batch of starts waits only while the lock is being taken again. On the embedded
 *   database each batch of starts reads its endpoints first (one statement for the
 *   batch). At most START_READS_IN_FLIGHT such reads run at once; slots that free
 *   meanwhile start together after one.
 * - A 410 hands back the endpoint's queued rows at once; the endpoint is auto-disabled
 *   when that outcome is recorded, and claims then skip it.
 * - New work is noticed at once: queued in this process, through the in-process wakeup;
 *   in another (on PostgreSQL), through LISTEN on the channel that every insert of
 *   deliveries notifies (a trigger). A short poll covers anything a notification missed.
 * - stop() stops claiming, hands the queued rows back, and drains the sends in flight
 *   and their records; a worker that dies instead leaves leases that run out, and the
 *   rows are claimed again.
 *
 * deliverDue() runs the same pump for tests: claim, send and record until nothing is
 * due (or `limit` attempts were made), with whatever clock the deps carry.
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  CLAIM_BATCH,
  PER_ENDPOINT_IN_FLIGHT,
  claimDeliveries,
  recordAttempts,
  sendAttempt,
  type DeliveryOutcome,
  type DispatchContext,
  type FinishedAttempt,
} from './dispatch.ts';
import { createWebhookSender, type WebhookSender } from './sender.ts';
import { systemResolver, type Resolver } from './url-vetting.ts';
import { onDeliveriesQueued } from '../outbox/wakeup.ts';
import { openEndpointGuard, type EndpointGuard } from '../db/repositories/webhook-endpoint-guard.ts';
import { sessionDatabaseUrl } from '../db/client.ts';
import { listenOnChannel } from '../db/listen.ts';
import { endpointsAtStart, type EndpointAtStart } from '../db/repositories/webhook-endpoints.ts';
import {
  DELIVERIES_QUEUED_CHANNEL,
  releaseDeliveries,
  type ClaimedDelivery,
  type HeldLease,
} from '../db/repositories/webhook-deliveries.ts';
import type { RunningJob, WorkerDeps } from '../background-job.ts';

/** Sends in flight at once, all endpoints together (sends are I/O, not CPU). */
export const MAX_IN_FLIGHT = 64;
/** Rows held in the local queues at most (claims ask for no more than fits). */
const MAX_QUEUED = 4 * CLAIM_BATCH;
/** A queued row not started within this long of its claim is handed back. */
const QUEUE_MAX_WAIT_MS = 1000;
/** A queued row is started only with at least WEBHOOK_TIMEOUT + this much lease left. */
export const RECORD_MARGIN_MS = 10_000;
/** After a claim that did not fill up, claim again only after this many leases were given back (or a wakeup, or the poll). */
const RECLAIM_AFTER_RELEASES = 128;
/** Outcomes recorded per statement at most. */
const RECORD_BATCH = 400;
/**
 * While sends are still finishing, a group smaller than this waits up to RECORD_DELAY_MS
 * for more, so recording costs few round trips (a lease is held that much longer).
 */
const RECORD_GROUP_MIN = 200;
const RECORD_DELAY_MS = 20;
const POLL_INTERVAL_MS = 200;
/** Pause after a claim or a start failed (the database unreachable or slow) before trying again. */
const CLAIM_FAILURE_PAUSE_MS = 1000;
/**
 * Reads of endpoints for starting attempts in flight at once. One: the slots that free
 * during a read all start after the next one, so in a drain each read serves many
 * starts; a second read in flight would split the batches and cost the worker more CPU
 * per delivery (bench/README.md, "Webhook drain").
 */
const START_READS_IN_FLIGHT = 1;
/** Delay after a wakeup, so the queuing transaction has usually committed. */
const WAKEUP_DELAY_MS = 5;

/**
 * What the webhook delivery job takes beside every job's deps (src/background-job.ts).
 * Production leaves them unset (src/main.ts); tests set them, through startWorkers()'s
 * `webhooks` or directly.
 */
export interface WebhookJobOptions {
  /** DNS for webhook URL vetting at send time; omitted means the system resolver. */
  webhookResolver?: Resolver;
  /** CAs trusted by the webhook sender instead of the system's (tests' self-signed receiver). */
  webhookCa?: string | Buffer | Array<string | Buffer>;
  /** How long an idle delivery worker waits before claiming again (default 200 ms; tests). */
  webhookPollIntervalMs?: number;
}

/** A job's deps with the webhook job's options: what the delivery job and deliverDue() run on. */
export type WebhookWorkerDeps = WorkerDeps & WebhookJobOptions;

export function createSenderFor(deps: WebhookWorkerDeps): WebhookSender {
  return createWebhookSender({
    allowLoopback: deps.config.webhookAllowLoopback,
    allowInsecureLoopback: deps.config.webhookAllowInsecureLoopback,
    resolver: deps.webhookResolver ?? systemResolver,
    timeoutMs: deps.config.webhookTimeoutMs,
    ...(deps.webhookCa === undefined ? {} : { ca: deps.webhookCa }),
  });
}

/**
 * On PostgreSQL, attempts take their endpoints from the endpoint guard (a lock held on a
 * connection of the job's own, src/db/repositories/webhook-endpoint-guard.ts); on the embedded
 * database they read them as they start.
 */
function guardFor(deps: WorkerDeps): EndpointGuard | null {
  const url = sessionDatabaseUrl(deps.config);
  if (url === undefined) return null;
  return openEndpointGuard(url, deps.logger, {
    connectTimeoutMs: deps.config.databaseAcquireTimeoutMs,
  });
}

function contextFor(deps: WorkerDeps, sender: WebhookSender): DispatchContext {
  return { db: deps.db, clock: deps.clock, config: deps.config, sender, log: deps.logger };
}

/** How attempts learn their endpoints' current url, secret and status as they start. */
interface EndpointReader {
  /** The endpoints when known current without a query, else undefined. */
  readNow?(ids: string[]): Map<string, EndpointAtStart> | undefined;
  read(ids: string[]): Promise<Map<string, EndpointAtStart>>;
}

interface Queued {
  row: ClaimedDelivery;
  claimedAt: number;
}

/**
 * The local half of the worker: per-endpoint queues of claimed rows, the sends in
 * flight, and the group recorder. Claiming is the caller's business (enqueue()).
 */
export class DeliveryPump {
  /** Claimed rows waiting to start: organizer → endpoint → rows in due order. */
  private readonly queues = new Map<string, Map<string, Queued[]>>();
  private readonly sendingTo = new Map<string, number>();
  private readonly sendingForOrganizer = new Map<string, number>();
  /** Endpoints that answered 410 and whose disabling is not recorded yet. */
  private readonly gone = new Set<string>();
  private sending = 0;
  private queuedCount = 0;
  private toRecord: FinishedAttempt[] = [];
  private toRelease: HeldLease[] = [];
  private flushing: Promise<void> | null = null;
  /** Batches of starting attempts whose endpoints are being read. */
  private startReads = 0;
  private startRetry: NodeJS.Timeout | null = null;
  private readonly settledWaiters: Array<() => void> = [];
  /** Leases given back (recorded or released) since the counter was last reset. */
  released = 0;
  readonly outcomes: DeliveryOutcome[] = [];

  constructor(
    private readonly ctx: DispatchContext,
    private readonly logger: FastifyBaseLogger,
    private readonly opts: {
      maxInFlight: number;
      keepOutcomes: boolean;
      onProgress?: () => void;
      /** Reads endpoints as attempts start; default: endpointsAtStart on the context's database. */
      endpoints?: EndpointReader;
    },
  ) {}

  get queued(): number {
    return this.queuedCount;
  }

  get inFlight(): number {
    return this.sending;
  }

  enqueue(rows: ClaimedDelivery[]): void {
    const claimedAt = performance.now();
    for (const row of rows) this.queueOf(row).push({ row, claimedAt });
    this.queuedCount += rows.length;
    this.pump();
  }

  private queueOf(row: ClaimedDelivery): Queued[] {
    let endpoints = this.queues.get(row.organizer_id);
    if (!endpoints) this.queues.set(row.organizer_id, (endpoints = new Map<string, Queued[]>()));
    let queue = endpoints.get(row.endpoint_id);
    if (!queue) endpoints.set(row.endpoint_id, (queue = []));
    return queue;
  }

  /** Starts every queued row a slot allows, endpoints in turn; hands back stale rows. */
  pump(): void {
    if (this.startReads < START_READS_IN_FLIGHT && this.startRetry === null) {
      const batch: Queued[] = [];
      // Round-robin: each pass gives every organizer with room one row, from its next
      // endpoint with room; whoever was served moves to the back.
      let progress = true;
      while (progress && this.sending < this.opts.maxInFlight && this.queuedCount > 0) {
        progress = false;
        for (const organizerId of [...this.queues.keys()]) {
          if (this.sending >= this.opts.maxInFlight) break;
          const next = this.takeNext(organizerId);
          if (next === undefined) continue;
          this.reserveSlot(next.row);
          batch.push(next);
          progress = true;
        }
      }
      if (batch.length > 0) this.startBatch(batch);
    }
    this.flush();
  }

  /**
   * The organizer's next row to start, from its first endpoint (in turn order) with a
   * free slot, or undefined when it has none or is at its in-flight share. Hands back
   * the stale rows it passes, and forgets emptied queues.
   */
  private takeNext(organizerId: string): Queued | undefined {
    const endpoints = this.queues.get(organizerId)!;
    const organizerFull =
      (this.sendingForOrganizer.get(organizerId) ?? 0) >= this.ctx.config.webhookMaxInFlightPerOrganizer;
    let next: Queued | undefined;
    for (const [endpointId, queue] of [...endpoints]) {
      this.dropStale(endpointId, queue);
      if (
        queue.length > 0 &&
        next === undefined &&
        !organizerFull &&
        (this.sendingTo.get(endpointId) ?? 0) < PER_ENDPOINT_IN_FLIGHT
      ) {
        next = queue.shift()!;
        this.queuedCount--;
        endpoints.delete(endpointId); // to the back of the organizer's turn
        if (queue.length > 0) endpoints.set(endpointId, queue);
      } else if (queue.length === 0) {
        endpoints.delete(endpointId);
      }
    }
    this.queues.delete(organizerId); // to the back of the organizers' turn
    if (endpoints.size > 0) this.queues.set(organizerId, endpoints);
    return next;
  }

  /** Hands back every queued row (at stop). */
  releaseQueued(): void {
    if (this.startRetry !== null) {
      clearTimeout(this.startRetry);
      this.startRetry = null;
    }
    for (const endpoints of this.queues.values())
      for (const queue of endpoints.values()) for (const q of queue) this.release(q.row);
    this.queues.clear();
    this.queuedCount = 0;
    this.flush();
  }

  /** Resolves when nothing is queued, being sent, or waiting to be recorded or released. */
  settled(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  private idle(): boolean {
    return (
      this.queuedCount === 0 &&
      this.sending === 0 &&
      this.startReads === 0 &&
      this.startRetry === null &&
      this.flushing === null &&
      this.toRecord.length === 0 &&
      this.toRelease.length === 0
    );
  }

  private dropStale(endpointId: string, queue: Queued[]): void {
    const gone = this.gone.has(endpointId);
    const now = performance.now();
    const leaseNeeded = this.ctx.clock.now().getTime() + this.ctx.config.webhookTimeoutMs + RECORD_MARGIN_MS;
    while (queue.length > 0) {
      const head = queue[0]!;
      const stale = gone || now - head.claimedAt > QUEUE_MAX_WAIT_MS || head.row.locked_until.getTime() < leaseNeeded;
      if (!stale) return;
      queue.shift();
      this.queuedCount--;
      this.release(head.row);
    }
  }

  private release(row: ClaimedDelivery): void {
    this.toRelease.push({ id: row.id, lockedUntil: row.locked_until });
  }

  private reserveSlot(row: ClaimedDelivery): void {
    this.sending++;
    increment(this.sendingTo, row.endpoint_id, 1);
    increment(this.sendingForOrganizer, row.organizer_id, 1);
  }

  private freeSlot(row: ClaimedDelivery): void {
    this.sending--;
    increment(this.sendingTo, row.endpoint_id, -1);
    increment(this.sendingForOrganizer, row.organizer_id, -1);
  }

  /**
   * Reads the endpoints of a batch whose slots are reserved, then sends each row with
   * its endpoint as it is now. If the read fails, the rows go back to the head of their
   * queues and the pump tries again after a pause (rows that wait too long meanwhile are
   * handed back as usual).
   */
  private startBatch(batch: Queued[]): void {
    const endpointIds = [...new Set(batch.map((q) => q.row.endpoint_id))];
    const reader = this.opts.endpoints;
    const now = reader?.readNow?.(endpointIds);
    if (now) {
      // Known current (the guard's lock is held): start at once, no query.
      for (const { row } of batch) this.startWith(row, now.get(row.endpoint_id));
      return;
    }
    this.startReads++;
    (reader ? reader.read(endpointIds) : endpointsAtStart(this.ctx.db, endpointIds))
      .then(
        (endpoints) => {
          for (const { row } of batch) this.startWith(row, endpoints.get(row.endpoint_id));
        },
        (err: unknown) => {
          this.logger.error(
            { err, deliveryIds: batch.map((q) => q.row.id) },
            'reading webhook endpoints to start attempts failed; retrying shortly',
          );
          for (const queued of batch.reverse()) {
            this.freeSlot(queued.row);
            this.queueOf(queued.row).unshift(queued);
            this.queuedCount++;
          }
          if (this.startRetry !== null) return;
          this.startRetry = setTimeout(() => {
            this.startRetry = null;
            this.pump();
          }, CLAIM_FAILURE_PAUSE_MS);
        },
      )
      .finally(() => {
        this.startReads--;
        this.pump();
      });
  }

  /** Sends a row signed with its endpoint's current secret, or hands it back if the endpoint no longer takes it. */
  private startWith(row: ClaimedDelivery, endpoint: EndpointAtStart | undefined): void {
    // A disabled endpoint still receives its test pings (docs/webhooks.md).
    if (endpoint === undefined || (endpoint.status !== 'enabled' && row.event_type !== 'test.ping')) {
      this.freeSlot(row);
      this.release(row);
      return;
    }
    this.send({ ...row, url: endpoint.url, secret: endpoint.secret, endpoint_status: endpoint.status });
  }

  private send(row: ClaimedDelivery): void {
    sendAttempt(this.ctx, row)
      .then(
        (finished) => {
          if (finished.gone) {
            // Nothing more to this endpoint: its queued rows go back now, and rows claimed
            // before the disabling is recorded are handed back too (see dropStale).
            this.gone.add(row.endpoint_id);
          }
          this.toRecord.push(finished);
        },
        (err: unknown) => {
          // sendAttempt does not throw for a receiver's failure; this is a bug or a crash
          // of the sender. The row stays leased and is retried when the lease runs out.
          this.logger.error({ err, deliveryId: row.id }, 'webhook delivery attempt failed');
        },
      )
      .finally(() => {
        this.freeSlot(row);
        this.pump();
        this.opts.onProgress?.();
      });
  }

  /** Records finished attempts and hands back released rows, one group at a time. */
  private flush(): void {
    if (this.flushing) return;
    if (this.toRecord.length === 0 && this.toRelease.length === 0) {
      this.wakeSettled();
      return;
    }
    this.flushing = (async () => {
      while (this.toRecord.length > 0 || this.toRelease.length > 0) {
        if (this.toRecord.length < RECORD_GROUP_MIN && this.toRelease.length === 0 && this.sending > 0) {
          await new Promise((resolve) => setTimeout(resolve, RECORD_DELAY_MS));
        }
        const releasing = this.toRelease;
        this.toRelease = [];
        if (releasing.length > 0) {
          try {
            await releaseDeliveries(this.ctx.db, releasing);
          } catch (err) {
            this.logger.error({ err }, 'handing back webhook deliveries failed (their leases will run out)');
          }
          this.released += releasing.length;
        }
        const batch = this.toRecord.splice(0, RECORD_BATCH);
        if (batch.length > 0) {
          try {
            const outcomes = await recordAttempts(this.ctx, batch);
            if (this.opts.keepOutcomes) this.outcomes.push(...outcomes);
          } catch (err) {
            this.logger.error(
              { err, deliveryIds: batch.map((f) => f.row.id) },
              'webhook delivery attempts failed to record',
            );
          }
          for (const f of batch) if (f.gone) this.gone.delete(f.row.endpoint_id);
          this.released += batch.length;
        }
        this.opts.onProgress?.();
      }
    })().finally(() => {
      this.flushing = null;
      this.pump(); // records may have arrived meanwhile; wakes settled() waiters when idle
    });
  }

  private wakeSettled(): void {
    if (!this.idle()) return;
    for (const resolve of this.settledWaiters.splice(0)) resolve();
  }
}

/** Adds `by` to a counter in a map, dropping it at zero. */
function increment(counts: Map<string, number>, key: string, by: number): void {
  const value = (counts.get(key) ?? 0) + by;
  if (value === 0) counts.delete(key);
  else counts.set(key, value);
}

/**
 * Makes every due attempt (up to `limit`), MAX_IN_FLIGHT at a time, and returns the
 * outcomes. Deliveries that become due because of these attempts (retries) are not due
 * yet on an unmoved clock, so this ends.
 */
export async function deliverDue(
  deps: WebhookWorkerDeps,
  limit = 1000,
  sender?: WebhookSender,
): Promise<DeliveryOutcome[]> {
  const own = sender ?? createSenderFor(deps);
  const ctx = contextFor(deps, own);
  const guard = guardFor(deps);
  const pump = new DeliveryPump(ctx, deps.logger, {
    maxInFlight: MAX_IN_FLIGHT,
    keepOutcomes: true,
    ...(guard ? { endpoints: guard } : {}),
  });
  try {
    while (pump.outcomes.length < limit) {
      const rows = await claimDeliveries(ctx, Math.min(CLAIM_BATCH, limit - pump.outcomes.length));
      if (rows.length === 0) break;
      pump.enqueue(rows);
      await pump.settled();
    }
  } finally {
    pump.releaseQueued();
    await pump.settled();
    await guard?.close();
    if (!sender) await own.close();
  }
  return pump.outcomes;
}

// eslint-disable-next-line max-lines-per-function -- the claim loop and stop() share the loop's state; see the file header
export const webhookDeliveryJob = (deps: WebhookWorkerDeps): RunningJob => {
  const pollMs = deps.webhookPollIntervalMs ?? POLL_INTERVAL_MS;
  const sender = createSenderFor(deps);
  const ctx = contextFor(deps, sender);
  let stopping = false;
  let nudge: (() => void) | null = null;
  /** Set when a wakeup arrived since the last claim. */
  let woken = true;

  const signal = () => {
    const resolve = nudge;
    nudge = null;
    resolve?.();
  };
  /** New deliveries were queued: claim again at once. */
  const wake = () => {
    woken = true;
    signal();
  };
  const guard = guardFor(deps);
  const pump = new DeliveryPump(ctx, deps.logger, {
    maxInFlight: MAX_IN_FLIGHT,
    keepOutcomes: false,
    onProgress: signal,
    ...(guard ? { endpoints: guard } : {}),
  });
  const unsubscribe = onDeliveriesQueued(() => setTimeout(wake, WAKEUP_DELAY_MS));
  // Deliveries queued by other processes (ROLE=api): PostgreSQL's NOTIFY arrives after
  // their commit. On the embedded database there is only this process.
  const sessionUrl = sessionDatabaseUrl(deps.config);
  const listener = sessionUrl
    ? listenOnChannel(sessionUrl, DELIVERIES_QUEUED_CHANNEL, wake, deps.logger, {
        connectTimeoutMs: deps.config.databaseAcquireTimeoutMs,
      })
    : null;

  /** Waits for a wakeup, progress of the pump, stop(), or `ms`. */
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        nudge = null;
        resolve();
      }, ms);
      nudge = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    // A claim that filled up may have left more due: claim again at once. After one
    // that came back short, everything due was taken or is held back by the per-endpoint
    // lease cap: claim again once enough leases were given back, on a wakeup, or at the
    // poll interval, not on every finished send.
    let full = true;
    let lastClaimAt = -Infinity;
    while (!stopping) {
      pump.pump(); // also hands back rows that waited too long
      const room = Math.min(CLAIM_BATCH, MAX_QUEUED - pump.queued);
      const sinceClaim = performance.now() - lastClaimAt;
      const allowed = full || woken || pump.released >= RECLAIM_AFTER_RELEASES || sinceClaim >= pollMs;
      if (allowed && pump.inFlight < MAX_IN_FLIGHT && room > 0) {
        woken = false;
        pump.released = 0;
        lastClaimAt = performance.now();
        try {
          const rows = await claimDeliveries(ctx, room);
          if (stopping) {
            // Stop arrived mid-claim: hand the rows back rather than start them.
            await releaseDeliveries(
              ctx.db,
              rows.map((r) => ({ id: r.id, lockedUntil: r.locked_until })),
            );
            break;
          }
          pump.enqueue(rows);
          full = rows.length === room;
        } catch (err) {
          // The database is down or slow: keep looping, after a pause (stop() or a
          // wakeup cuts it short), so an outage costs a log line a second, not a spin.
          deps.logger.error({ err }, 'claiming webhook deliveries failed; retrying shortly');
          full = false;
          await idle(CLAIM_FAILURE_PAUSE_MS);
        }
        continue;
      }
      // Blocked by capacity: a finished send nudges us. Else until the poll is due.
      await idle(allowed ? pollMs : Math.max(1, pollMs - sinceClaim));
    }
  })();

  return {
    name: 'webhook-delivery',
    async stop() {
      stopping = true;
      signal();
      await loop;
      pump.releaseQueued();
      await pump.settled();
      unsubscribe();
      await listener?.close();
      await guard?.close();
      await sender.close();
    },
  };
};
