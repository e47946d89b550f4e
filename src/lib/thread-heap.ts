/**
 * The heap limits of the process's helper threads (the embedded database's, the mail
 * renderers'): a young generation of 2 × 4 MiB semi-spaces (V8 sizes it at three
 * semi-spaces), where V8's default is 2 × 16 MiB. They allocate little per task, and a
 * small nursery keeps each thread's resident set small. The HTTP thread keeps V8's
 * default: a sale's objects live across its database round trips, and with a small
 * nursery they were copied and promoted so often that the garbage collector took about
 * a third of the API's CPU in an on-sale (docs/operations.md, "Memory").
 */
import type { ResourceLimits } from 'node:worker_threads';

export const HELPER_THREAD_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 12 };
