/**
 * One process per data directory: the embedded database (PGlite) has no locking of its
 * own, so two processes on one DATA_DIR would both write it and lose each other's data.
 * The process that holds `DATA_DIR/marquee.lock` owns the directory; a second one waits
 * (bounded) for the holder to exit, then gives up. See docs/operations.md, "One process
 * per data directory".
 *
 * The lock file is created complete and atomically (written to a private temp file, then
 * hard-linked into place: link fails if the name exists) and holds who owns it: PID,
 * host, start time and the kernel's start time of that PID. A lock whose process is gone
 * (SIGKILL, power loss) is stale and taken over; the kernel start time tells a reused PID
 * from the original holder. Locks written on another host (a shared volume) cannot be
 * checked by PID: their holder refreshes the file's mtime, and one that stops is stale.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const LOCK_FILE_NAME = 'marquee.lock';

/** What the lock file says about the process that holds it. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** When the holder took the lock (ISO 8601). */
  startedAt: string;
  /** The kernel's start time of `pid` (Linux /proc, clock ticks since boot); null elsewhere. */
  processStart: string | null;
  /** Unique per acquisition: tells this lock from a later one by the same PID. */
  nonce: string;
}

export interface DataDirLock {
  /** Absolute path of the lock file. */
  readonly file: string;
  readonly holder: LockHolder;
  /** Removes the lock file if it is still ours. Synchronous, idempotent; safe in an 'exit' handler. */
  release(): void;
}

/** The data directory stayed held by a live process for the whole wait. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    const where = holder.hostname === hostname() ? '' : ` on host ${holder.hostname}`;
    super(
      `DATA_DIR ${dataDir} is in use by process ${holder.pid}${where} (another Marquee, started ${holder.startedAt}). ` +
        'Stop it or set DATA_DIR to another directory.',
    );
    this.name = 'DataDirInUseError';
  }
}

interface AcquireOptions {
  /** How long to wait for a live holder to exit before giving up (DATA_DIR_LOCK_WAIT). */
  waitMs: number;
  /** Interval between checks while waiting; default 100 ms. */
  pollMs?: number;
  /** Called once, when the first check finds the directory held by a live process. */
  onWaiting?: (holder: LockHolder) => void;
}

/** How often a holder refreshes its lock file's mtime, for starters on other hosts. */
const HEARTBEAT_MS = 10_000;
/** A lock from another host whose mtime is older than this is stale. */
const FOREIGN_STALE_MS = 6 * HEARTBEAT_MS;
/** A takeover guard older than this was left by a starter that died mid-takeover. */
const GUARD_STALE_MS = 5_000;

/** Nonces of the locks this process holds, so it never mistakes its own lock for a stale one. */
const heldHere = new Set<string>();

/**
 * Takes the lock on `dataDir` (created if missing), waiting up to `waitMs` for a live
 * holder to exit. Throws DataDirInUseError if it does not, and the file system's error
 * if the directory cannot be created or written.
 */
export async function acquireDataDirLock(dataDir: string, opts: AcquireOptions): Promise<DataDirLock> {
  const dir = path.resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE_NAME);
  const pollMs = opts.pollMs ?? 100;
  const deadline = Date.now() + opts.waitMs;
  const mine = ownHolder();
  let announced = false;
  for (;;) {
    const outcome = tryCreate(file, mine);
    if (outcome === 'created') return holdLock(file, mine);
    if (outcome === undefined) continue; // released between our attempt and the read: try again
    const stale = outcome === 'unreadable' || !isAlive(outcome, file);
    if (stale && takeOver(file, outcome === 'unreadable' ? undefined : outcome.nonce)) continue;
    if (!stale && !announced) {
      announced = true;
      opts.onWaiting?.(outcome);
    }
    if (Date.now() >= deadline) {
      if (stale) throw new Error(`the stale lock file ${file} cannot be replaced`);
      throw new DataDirInUseError(dir, outcome);
    }
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
  }
}

function ownHolder(): LockHolder {
  return {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    processStart: processStartTime(process.pid),
    nonce: randomBytes(8).toString('hex'),
  };
}

/**
 * Creates the lock file with its full content in one step, or returns who holds it
 * (undefined: it vanished meanwhile; 'unreadable': not a lock file we understand).
 */
function tryCreate(file: string, mine: LockHolder): 'created' | LockHolder | 'unreadable' | undefined {
  const temp = `${file}.${mine.nonce}.tmp`;
  writeFileSync(temp, JSON.stringify(mine) + '\n', { flag: 'wx', mode: 0o644 });
  try {
    linkSync(temp, file);
    return 'created';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readHolder(file);
  } finally {
    unlinkSync(temp);
  }
}

function readHolder(file: string): LockHolder | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(parsed.pid) && typeof parsed.hostname === 'string' && typeof parsed.nonce === 'string') {
      return {
        pid: parsed.pid!,
        hostname: parsed.hostname,
        startedAt: String(parsed.startedAt ?? 'unknown'),
        processStart: typeof parsed.processStart === 'string' ? parsed.processStart : null,
        nonce: parsed.nonce,
      };
    }
  } catch {
    // fall through: not JSON
  }
  return 'unreadable';
}

function isAlive(holder: LockHolder, file: string): boolean {
  if (holder.hostname !== hostname()) {
    // Another host's PIDs mean nothing here: trust the holder's heartbeat instead.
    const mtime = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    return mtime !== undefined && Date.now() - mtime < FOREIGN_STALE_MS;
  }
  if (heldHere.has(holder.nonce)) return true;
  // Our own PID in a lock we do not hold is a previous life of this PID (a restarted container).
  if (holder.pid === process.pid) return false;
  if (!pidExists(holder.pid)) return false;
  const start = processStartTime(holder.pid);
  // Same PID, different start time: the holder died and the PID went to another process.
  if (start !== null && holder.processStart !== null && start !== holder.processStart) return false;
  return true;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or null without /proc. */
export function processStartTime(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces and ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

/**
 * Removes a stale lock so the next attempt can create it. Takeovers are serialized by a
 * guard file created exclusively, and the lock is re-read under the guard: two starters
 * that both judged the same lock stale cannot remove each other's fresh lock. True when
 * the caller should try to create the lock again at once.
 */
function takeOver(file: string, staleNonce: string | undefined): boolean {
  const guard = `${file}.takeover`;
  try {
    writeFileSync(guard, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const age = Date.now() - (statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > GUARD_STALE_MS) unlinkQuietly(guard);
    return false; // another starter is taking over: wait a little, then look again
  }
  try {
    const current = readHolder(file);
    const unchanged = current === 'unreadable' ? staleNonce === undefined : current?.nonce === staleNonce;
    if (current === undefined || !unchanged) return true; // already replaced
    unlinkSync(file);
    return true;
  } catch {
    return false;
  } finally {
    unlinkQuietly(guard);
  }
}

function holdLock(file: string, holder: LockHolder): DataDirLock {
  heldHere.add(holder.nonce);
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // The file is gone or the disk is read-only; the process keeps serving either way.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return {
    file,
    holder,
    release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      heldHere.delete(holder.nonce);
      const current = readHolderQuietly(file);
      if (current !== undefined && current !== 'unreadable' && current.nonce === holder.nonce) unlinkQuietly(file);
    },
  };
}

function readHolderQuietly(file: string): LockHolder | 'unreadable' | undefined {
  try {
    return readHolder(file);
  } catch {
    return undefined;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
