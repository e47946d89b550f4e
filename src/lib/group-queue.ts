/**
 * Group commit's queue: work items of one key that arrive while earlier ones run are run
 * together, as one batch, as soon as a slot frees.
 *
 * A key runs at most `maxRunning` batches at a time. An item submitted while a slot is
 * free starts at once, alone: with no contention nothing waits and nothing is delayed (no
 * timer, no window). Items submitted while every slot is busy wait, and the next slot to
 * free takes all of them (up to `maxBatch`, oldest first) as one batch. So the busier a
 * key, the larger its batches, and the cost a batch pays once (a lock, a commit, a round
 * trip) is shared by more items.
 *
 * `run` settles each item of its batch on its own (one item's failure is its own); a
 * `run` that throws fails every item of its batch with that error.
 */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiter<I, R> {
  item: I;
  resolve(value: R): void;
  reject(err: unknown): void;
}

interface Lane<I, R> {
  running: number;
  waiting: Waiter<I, R>[];
}

interface GroupQueueOptions {
  /** Batches of one key running at a time. */
  maxRunning: number;
  /** Items in one batch. */
  maxBatch: number;
}

export class GroupQueue<I, R> {
  private readonly lanes = new Map<string, Lane<I, R>>();

  constructor(
    private readonly run: (items: I[]) => Promise<Settled<R>[]>,
    private readonly options: GroupQueueOptions,
  ) {}

  /** Resolves or rejects with the item's own outcome in the batch that runs it. */
  submit(key: string, item: I): Promise<R> {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    const answer = new Promise<R>((resolve, reject) => lane.waiting.push({ item, resolve, reject }));
    if (lane.running < this.options.maxRunning) this.start(key, lane);
    return answer;
  }

  /** Keys with work running or waiting (for tests). */
  get size(): number {
    return this.lanes.size;
  }

  private start(key: string, lane: Lane<I, R>): void {
    const batch = lane.waiting.splice(0, this.options.maxBatch);
    lane.running++;
    const settle = () => {
      lane.running--;
      if (lane.waiting.length > 0) this.start(key, lane);
      else if (lane.running === 0) this.lanes.delete(key);
    };
    // A run that throws instead of rejecting fails its batch the same way.
    Promise.resolve()
      .then(() => this.run(batch.map((waiter) => waiter.item)))
      .then(
        (outcomes) =>
          batch.forEach((waiter, i) => {
            const outcome = outcomes[i];
            if (outcome === undefined) waiter.reject(new Error('GroupQueue: the batch left an item unsettled'));
            else if (outcome.ok) waiter.resolve(outcome.value);
            else waiter.reject(outcome.error);
          }),
        (err: unknown) => batch.forEach((waiter) => waiter.reject(err)),
      )
      .finally(settle);
  }
}
