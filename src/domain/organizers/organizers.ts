/** Organizers (tenants): creation with validated defaults, settings updates. */
import type { Executor } from '../../db/transaction.ts';
import {
  findOrganizer,
  insertOrganizer,
  organizersListQuery,
  updateOrganizer,
} from '../../db/repositories/organizers.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import { invalid, notFound } from '../../errors/domain-error.ts';
import { isValidCurrency, isValidTimeZone } from '../../lib/locale.ts';

interface OrganizerSettings {
  name?: string;
  timezone?: string;
  currency?: string;
  box_office_fee_minor?: number;
  tax_rate_bps?: number;
}

function checkSettings(input: OrganizerSettings): void {
  if (input.name !== undefined && input.name.trim() === '')
    throw invalid('parameter_invalid', '`name` must not be blank.', 'name');
  if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) {
    throw invalid(
      'parameter_invalid',
      `\`timezone\` must be an IANA time zone such as Europe/Berlin, got "${input.timezone}".`,
      'timezone',
    );
  }
  if (input.currency !== undefined && !isValidCurrency(input.currency)) {
    throw invalid(
      'parameter_invalid',
      `\`currency\` must be an ISO 4217 code such as EUR, got "${input.currency}".`,
      'currency',
    );
  }
}

export async function createOrganizer(db: Executor, input: { name: string; timezone?: string; currency?: string }) {
  checkSettings(input);
  return insertOrganizer(db, {
    name: input.name,
    timezone: input.timezone ?? 'UTC',
    currency: input.currency ?? 'EUR',
  });
}

export async function getOrganizer(db: Executor, id: string) {
  const row = await findOrganizer(db, id);
  if (!row) throw notFound('Organizer');
  return row;
}

export async function updateOrganizerSettings(db: Executor, id: string, input: OrganizerSettings) {
  if (Object.keys(input).length === 0) throw invalid('empty_update', 'Send at least one field to update.');
  checkSettings(input);
  const row = await updateOrganizer(db, id, input);
  if (!row) throw notFound('Organizer');
  return row;
}

/** GET /admin/v1/organizers: newest first (docs/operations.md, "Admin lists"). */
export async function listOrganizers(db: Executor, page: PageRequest) {
  return keysetPage(db, organizersListQuery(db), page, {
    table: 'organizers',
    sortColumn: 'created_at',
    direction: 'desc',
  });
}
