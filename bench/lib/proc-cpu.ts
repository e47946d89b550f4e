/** CPU time of processes, read from /proc (Linux), for the bench's per-delivery CPU figures. */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds (user + system, all threads) a process has used so far; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return 0;
  }
}

/** The pids of every PostgreSQL server process on this machine. */
export function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres');
      } catch {
        return false;
      }
    });
}
