/**
 * Lets the machine settle before a measured run: a PostgreSQL CHECKPOINT (so the dirty
 * buffers of the previous scenario, and of the scratch database it dropped, are not
 * written during this one), then waits until the CPUs were at least 90% idle over one
 * second, for at most 20 s. Every scenario and run starts the same way.
 */
import { readFileSync } from 'node:fs';
import { PG_ADMIN_URL, withClient } from './db.ts';

function cpuTimes(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3]! + (fields[4] ?? 0); // idle + iowait
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}

export async function settle(maxWaitMs = 20_000): Promise<{ waitedMs: number; idleShare: number }> {
  const started = performance.now();
  await withClient(PG_ADMIN_URL, (client) => client.query('CHECKPOINT'));
  let idleShare = 0;
  while (performance.now() - started < maxWaitMs) {
    const before = cpuTimes();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = cpuTimes();
    idleShare = (after.idle - before.idle) / Math.max(1, after.total - before.total);
    if (idleShare >= 0.9) break;
  }
  return { waitedMs: Math.round(performance.now() - started), idleShare: Math.round(idleShare * 100) / 100 };
}
