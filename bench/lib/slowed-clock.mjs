/**
 * Preloaded into Marquee by the instruction count (`--import`, ../instructions.ts): makes
 * the service's clock (`systemClock` of dist/lib/clock.js, the one source of "now" of its
 * caches and time rules) run CLOCK_SLOWDOWN times slower than the wall clock, from the
 * moment the process starts.
 *
 * Under callgrind a read runs many times slower than at full speed (CALLGRIND_SLOWDOWN of
 * ../instructions.ts), while the event-detail and API-key caches expire by the clock (1 s
 * and 2 s). Left alone, every reload (a query, its rows, the presenter and the serializer)
 * would be shared by that many times fewer reads than in production and counted against
 * each of them. Slowed by the same factor, the caches expire after as many reads as they
 * do at full speed.
 *
 * Plain JavaScript: worker threads inherit the process's --import list. The module is the
 * target tree's own (the process's working directory), so the service sees the change: the
 * compiled one, or the TypeScript source for a tree from before the build (run with tsx,
 * which ./marquee.ts loads before this module).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const slowdown = Number(process.env.CLOCK_SLOWDOWN);
if (!(slowdown >= 1)) throw new Error(`CLOCK_SLOWDOWN must be a number ≥ 1, got ${process.env.CLOCK_SLOWDOWN}`);
const compiled = join(process.cwd(), 'dist', 'lib', 'clock.js');
const clockModule = existsSync(compiled) ? compiled : join(process.cwd(), 'src', 'lib', 'clock.ts');
const { systemClock } = await import(pathToFileURL(clockModule).href);
const startedAt = Date.now();
systemClock.now = () => new Date(startedAt + (Date.now() - startedAt) / slowdown);
