/**
 * Preloaded into a Marquee process by the mail scenarios (`--import`): measures the
 * process's event-loop delay with monitorEventLoopDelay. On SIGWINCH it prints one line,
 * `loop-delay {"p50_ms":…,"p99_ms":…,"max_ms":…,"samples":…}`, and starts a new window.
 * Plain JavaScript: worker threads inherit the process's --import list, and there a
 * TypeScript file given next to tsx does not load. Runs in each thread; only the main
 * thread receives the signal.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;

process.on('SIGWINCH', () => {
  const line = {
    p50_ms: ms(histogram.percentile(50)),
    p99_ms: ms(histogram.percentile(99)),
    max_ms: ms(histogram.max),
    samples: histogram.count,
  };
  process.stderr.write(`loop-delay ${JSON.stringify(line)}\n`);
  histogram.reset();
});
