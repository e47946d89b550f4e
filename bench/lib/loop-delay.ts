/**
 * Reading a Marquee process's event-loop delay through the probe preloaded into it
 * (`loop-delay-probe.mjs`, passed as `preload: [LOOP_DELAY_PROBE]` to startMarquee):
 * each `signalWindow` closes the probe's window and starts the next; `loopDelay` reads the
 * window closed last.
 */
import { fileURLToPath } from 'node:url';
import type { MarqueeProcess } from './marquee.ts';

export const LOOP_DELAY_PROBE = fileURLToPath(new URL('./loop-delay-probe.mjs', import.meta.url));

/** The figures of the window closed last. */
export function loopDelay(proc: MarqueeProcess): { p50_ms: number; p99_ms: number; max_ms: number } {
  const lines = proc
    .output()
    .split('\n')
    .filter((l) => l.startsWith('loop-delay '));
  return JSON.parse(lines.at(-1)!.slice('loop-delay '.length));
}

/** Closes the probe's window (it prints it) and waits for the line. */
export async function signalWindow(proc: MarqueeProcess): Promise<void> {
  const before = proc.output().split('loop-delay ').length;
  proc.child.kill('SIGWINCH');
  const deadline = performance.now() + 5_000;
  while (proc.output().split('loop-delay ').length === before) {
    if (performance.now() > deadline) throw new Error('loop-delay probe did not answer');
    await new Promise((r) => setTimeout(r, 10));
  }
}
