/**
 * Whose turn the embedded database's one connection is (docs/architecture.md, "Requests
 * before background jobs, embedded"): requests before background jobs.
 *
 * PGlite is one session, so every query of the process queues for it. Requests (a buyer
 * waiting for an answer) and background jobs (webhook deliveries, e-mails, purges: work
 * whose timing nobody watches to the millisecond) share that queue; first come, first
 * served would let an e-mail pass's statements sit between a sale's. Here a request
 * waiter always goes before a background waiter, and a background waiter that has waited
 * BACKGROUND_PROMOTION_MS queues again as a request would, at the back of the requests'
 * line: background work slows down under load, it never stops.
 *
 * The connection is handed on in a turn of the event loop of its own (setImmediate), not
 * in the microtasks of the holder that hands it on: a transaction hands it on as soon as
 * its last statement is sent (./dialect.ts), so a line of waiting sales would
 * otherwise each take it, send and hand it on in one unbroken run of the HTTP thread,
 * while sockets wait. The database thread has the statements just sent to work on
 * meanwhile.
 *
 * Every wait is bounded by the acquire timeout (DATABASE_ACQUIRE_TIMEOUT): a waiter that
 * gives up rejects with AcquireTimeoutError (answered 503), and when its turn comes it
 * hands the connection on at once, so a timed-out wait never holds it.
 */
import { Mutex } from 'async-mutex';
import { AcquireTimeoutError } from '../errors.ts';

/** Who is asking for the connection. */
export type Turn = 'request' | 'background';

/** async-mutex serves the highest priority first, and equal priorities in order. */
const PRIORITY: Readonly<Record<Turn, number>> = { request: 1, background: 0 };

/**
 * How long a background waiter stays behind every request before it queues with them.
 * Long enough that a burst of requests passes first, short enough that a job's
 * transaction (which holds leases) finishes well inside them.
 */
const BACKGROUND_PROMOTION_MS = 200;

/** The connection's use: 1 or 0 holding it, and how many wait for it (docs/operations.md, "Metrics"). */
interface ConnectionUse {
  inUse: number;
  waiting: number;
}

export class EmbeddedTurns {
  readonly #mutex = new Mutex();
  /** Callers waiting for the connection (a waiter that timed out no longer counts). */
  #waiting = 0;

  constructor(
    private readonly acquireTimeoutMs: number,
    private readonly promotionMs: number = BACKGROUND_PROMOTION_MS,
  ) {}

  /** Waits for the connection; resolves with the function that hands it on. */
  async acquire(turn: Turn): Promise<() => void> {
    this.#waiting++;
    try {
      return await this.#acquireWithin(turn);
    } finally {
      this.#waiting--;
    }
  }

  use(): ConnectionUse {
    return { inUse: this.#mutex.isLocked() ? 1 : 0, waiting: this.#waiting };
  }

  /**
   * Queues once with the turn's priority and, for background work still waiting after
   * promotionMs, once more as a request. The first place to come up takes the
   * connection; any other, or any after the timeout, hands it on the moment it comes up
   * (async-mutex cannot take a waiter out of its queue).
   */
  #acquireWithin(turn: Turn): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const settle = () => {
        settled = true;
        for (const timer of timers) clearTimeout(timer);
      };
      const queue = (priority: number) =>
        this.#mutex.acquire(priority).then(
          (release) => {
            if (settled) {
              release();
              return;
            }
            settle();
            resolve(() => setImmediate(release));
          },
          (err: unknown) => {
            if (settled) return;
            settle();
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      timers.push(
        setTimeout(() => {
          if (settled) return;
          settle();
          reject(new AcquireTimeoutError(this.acquireTimeoutMs));
        }, this.acquireTimeoutMs),
      );
      void queue(PRIORITY[turn]);
      if (turn === 'background' && this.promotionMs < this.acquireTimeoutMs) {
        timers.push(
          setTimeout(() => {
            if (!settled) void queue(PRIORITY.request);
          }, this.promotionMs),
        );
      }
    });
  }
}
