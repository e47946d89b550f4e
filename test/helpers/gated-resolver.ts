/**
 * A DNS resolver for webhook URL vetting that answers only when the test opens its gate:
 * it stands for a resolver that takes seconds, without a test sleeping for seconds.
 */
import type { Resolver } from '../../src/webhooks/url-vetting.ts';

export interface GatedResolver {
  resolver: Resolver;
  /** Lookups started so far. */
  readonly calls: number;
  /** Resolves once `n` lookups have started (rejects after `timeoutMs`). */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  /** Answers every waiting lookup, and every later one at once. */
  open(): void;
}

/** Every host resolves to one public address once the gate is open. */
export function gatedResolver(address = '93.184.216.34'): GatedResolver {
  let calls = 0;
  let opened = false;
  const waiting: Array<() => void> = [];
  const answer = () => [{ address, family: 4 as const }];
  return {
    resolver: async () => {
      calls++;
      if (opened) return answer();
      await new Promise<void>((resolve) => waiting.push(resolve));
      return answer();
    },
    get calls() {
      return calls;
    },
    async waitForCalls(n, timeoutMs = 5000) {
      const deadline = performance.now() + timeoutMs;
      while (calls < n) {
        if (performance.now() > deadline) throw new Error(`expected ${n} lookups, saw ${calls}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    open() {
      opened = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}
