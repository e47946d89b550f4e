/**
 * One read shared by concurrent callers of the same key, never answering a caller with
 * a read that began before it asked.
 *
 * A caller that asks while no read of its key runs starts one. Callers that ask while a
 * read runs do not join it (it began before they asked, so it may miss a write they
 * expect to see); they wait together for the next read, which starts as soon as the
 * running one ends. So under any concurrency a key has at most one read running and one
 * batch waiting, and every answer is as fresh as a read of the caller's own.
 *
 * DataLoader batches callers of one tick and shares reads already running (or cached),
 * which is the staleness this module exists to avoid.
 */
interface Batch<I, V> {
  inputs: I[];
  load: (inputs: I[]) => Promise<V>;
  waiters: { resolve(value: V): void; reject(err: unknown): void }[];
}

interface Slot<I, V> {
  running: boolean;
  waiting: Batch<I, V> | undefined;
}

export class FreshReadCoalescer<I, V> {
  private readonly slots = new Map<string, Slot<I, V>>();

  /**
   * Resolves with the value of a `load` call that starts after this call, shared with the
   * other callers of `key` that asked before that load started; `load` receives every
   * such caller's input (the first caller's `load` is the one called).
   */
  read(key: string, input: I, load: (inputs: I[]) => Promise<V>): Promise<V> {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { running: false, waiting: undefined };
      this.slots.set(key, slot);
    }
    const batch = (slot.waiting ??= { inputs: [], load, waiters: [] });
    const answer = new Promise<V>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    batch.inputs.push(input);
    if (!slot.running) this.start(key, slot);
    return answer;
  }

  /** Keys with a read running (for tests). */
  get size(): number {
    return this.slots.size;
  }

  private start(key: string, slot: Slot<I, V>): void {
    const batch = slot.waiting!;
    slot.waiting = undefined;
    slot.running = true;
    const settle = () => {
      slot.running = false;
      if (slot.waiting !== undefined) this.start(key, slot);
      else this.slots.delete(key);
    };
    // A load that throws instead of rejecting fails its batch the same way.
    const loading = new Promise<V>((resolve) => resolve(batch.load(batch.inputs)));
    loading.then(
      (value) => {
        settle();
        for (const waiter of batch.waiters) waiter.resolve(value);
      },
      (err: unknown) => {
        settle();
        for (const waiter of batch.waiters) waiter.reject(err);
      },
    );
  }
}
