/**
 * What ended of the people's records (docs/dashboard.md, "Sessions and their defences"):
 * sessions past their idle or absolute end (a request finding one deletes it too, this
 * catches the ones nobody comes back with), and one-time links 30 days after they
 * expired. Run by the retention purge job.
 */
import type { Db } from '../db/client.ts';
import type { SessionSettings } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { purgeEndedSessions } from '../db/repositories/sessions.ts';
import { purgeLinksExpiredBefore } from '../db/repositories/one-time-links.ts';

const LINK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export async function purgeEndedPeopleRecords(deps: {
  db: Db;
  clock: Clock;
  sessions: SessionSettings;
}): Promise<{ sessions: number; links: number }> {
  const now = deps.clock.now();
  return {
    sessions: await purgeEndedSessions(deps.db, now, new Date(now.getTime() - deps.sessions.idleTimeoutMs)),
    links: await purgeLinksExpiredBefore(deps.db, new Date(now.getTime() - LINK_RETENTION_MS)),
  };
}
