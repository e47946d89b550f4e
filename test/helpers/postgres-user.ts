/**
 * The `postgres` OS user, for the helpers that run PostgreSQL's own programs (a replica
 * pair, PgBouncer): they refuse to run as root, so a root test process runs them as that
 * user, in directories it owns.
 */
import { readFileSync } from 'node:fs';

/** The uid and gid of `postgres` when this process is root; undefined otherwise (run as is). */
export function postgresUserWhenRoot(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = /^postgres:[^:]*:(\d+):(\d+):/m.exec(readFileSync('/etc/passwd', 'utf8'));
  if (!line) throw new Error('no postgres user to run PostgreSQL programs as');
  return { uid: Number(line[1]), gid: Number(line[2]) };
}
