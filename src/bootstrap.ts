/**
 * First-start setup (README, "Two commands"): the admin token, and on an empty
 * database the `Default` organizer with one read+write API key and a one-time link
 * (72 hours) that creates its first owner. The secrets are printed once, when created,
 * and never again.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from './db/client.ts';
import { createApiKey, type CreatedApiKey } from './domain/auth/api-keys.ts';
import { createOrganizer } from './domain/organizers/organizers.ts';
import { createOwnerSetupLink, linkUrl } from './domain/people/links.ts';
import { withTransaction } from './db/transaction.ts';

/** Arbitrary constant naming "the Marquee bootstrap lock" among advisory locks. */
const BOOTSTRAP_LOCK_KEY = 4_242_002;

interface AdminTokenResult {
  token: string;
  generated: boolean;
}

/** ADMIN_TOKEN from the environment, else the one stored in DATA_DIR, else a new one stored there. */
export function resolveAdminToken(configured: string | undefined, dataDir: string): AdminTokenResult {
  if (configured) return { token: configured, generated: false };
  const file = path.join(dataDir, 'admin-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), generated: false };
  mkdirSync(dataDir, { recursive: true });
  const token = 'mqa_' + randomBytes(32).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600, flag: 'wx' });
  return { token, generated: true };
}

/**
 * Creates the Default organizer and its key when no organizer exists yet. Runs under an
 * advisory lock so two instances starting at once create one, not two.
 */
export async function ensureDefaultOrganizer(
  db: Db,
  publicUrl: string,
  now: Date = new Date(),
): Promise<{ organizerId: string; apiKey: CreatedApiKey; ownerSetupUrl: string } | undefined> {
  return withTransaction(db, async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`.execute(trx);
    const existing = await trx.selectFrom('organizers').select('id').limit(1).executeTakeFirst();
    if (existing) return undefined;
    const organizer = await createOrganizer(trx, { name: 'Default' });
    const apiKey = await createApiKey(trx, {
      organizerId: organizer.id,
      name: 'Default key',
      scopes: ['read', 'write'],
    });
    // The first owner signs up through this link (docs/dashboard.md, "One-time links").
    const setupToken = await createOwnerSetupLink(trx, organizer.id, now);
    return { organizerId: organizer.id, apiKey, ownerSetupUrl: linkUrl(publicUrl, 'setup', setupToken) };
  });
}
