/** Organizers (tenants): creation with validated defaults, settings updates. */
import { withTransaction, type Executor } from '../../db/transaction.ts';
import {
  countOrdersOfOrganizer,
  findOrganizerSettings,
  insertOrganizer,
  lockOrganizerRow,
  organizersListQuery,
  updateOrganizer,
  type OrganizerSettingsRow,
} from '../../db/repositories/organizers.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import { DomainError, invalid, notFound } from '../../errors/domain-error.ts';
import { isValidCurrency, isValidTimeZone } from '../../lib/locale.ts';
import { isLanguage, LANGUAGES } from '../../i18n/index.ts';

/** What an update may change (PATCH /admin/v1/organizers/{id} and PATCH /dashboard/v1/organizer). */
interface OrganizerSettings {
  name?: string;
  timezone?: string;
  currency?: string;
  box_office_fee_minor?: number;
  tax_rate_bps?: number;
  /** null clears it. */
  contact_email?: string | null;
  /** null clears it. */
  sender_email?: string | null;
  /** A language a catalogue ships for (docs/tickets.md, "Languages"); null: English. */
  default_language?: string | null;
  ticket_paper_size?: 'a4' | 'letter';
}

/**
 * 400 for a language no catalogue ships, naming those that do: the check of the
 * organizer's default and of an event's language (docs/dashboard.md).
 */
export function checkLanguage(tag: string | null | undefined, param: string): void {
  if (tag === undefined || tag === null || isLanguage(tag)) return;
  throw invalid(
    'parameter_invalid',
    `\`${param}\` must be a language Marquee ships (${LANGUAGES.join(', ')}), got "${tag}".`,
    param,
  );
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
  checkLanguage(input.default_language, 'default_language');
}

export async function createOrganizer(
  db: Executor,
  input: { name: string; timezone?: string; currency?: string },
): Promise<OrganizerSettingsRow> {
  checkSettings(input);
  const row = await insertOrganizer(db, {
    name: input.name,
    timezone: input.timezone ?? 'UTC',
    currency: input.currency ?? 'EUR',
  });
  return { ...row, currency_locked: false };
}

export async function getOrganizer(db: Executor, id: string) {
  const row = await findOrganizerSettings(db, id);
  if (!row) throw notFound('Organizer');
  return row;
}

/** 409 for a currency change of an organizer with orders: what it has and why it stays. */
function currencyLocked(current: string, orders: number) {
  return new DomainError(
    'invalid_state',
    `The currency cannot change once the organizer has orders: it has ${orders}, whose amounts, refunds and reports are in ${current}.`,
    'currency',
  );
}

/**
 * A partial update of the organizer's settings: the one function behind the admin API's
 * PATCH /admin/v1/organizers/{id} and the dashboard's PATCH /dashboard/v1/organizer.
 *
 * The currency is fixed once an order exists, and the database keeps it so
 * (migrations/0018_organizer_contact.sql): a change locks the organizer row FOR UPDATE,
 * which waits for every order being inserted (an order's insert holds the row FOR KEY
 * SHARE), and then updates it only where no order exists, in a statement whose snapshot
 * sees those orders. A sale that read the old currency before the change and inserts
 * after it fails in the database (40001, answered 503 and retried with the new one).
 */
export async function updateOrganizerSettings(
  db: Executor,
  id: string,
  input: OrganizerSettings,
): Promise<OrganizerSettingsRow> {
  if (Object.keys(input).length === 0) throw invalid('empty_update', 'Send at least one field to update.');
  checkSettings(input);
  if (input.currency === undefined) {
    const row = await updateOrganizer(db, id, input);
    if (!row) throw notFound('Organizer');
    return row;
  }
  const currency = input.currency;
  return withTransaction(db, async (trx) => {
    const current = await findOrganizerSettings(trx, id);
    if (!current) throw notFound('Organizer');
    // Orders are never deleted: one seen now refuses without taking the lock.
    if (current.currency !== currency && current.currency_locked)
      throw currencyLocked(current.currency, await countOrdersOfOrganizer(trx, id));
    const locked = await lockOrganizerRow(trx, id);
    if (!locked) throw notFound('Organizer');
    const row = await updateOrganizer(trx, id, input);
    if (!row) throw currencyLocked(locked.currency, await countOrdersOfOrganizer(trx, id));
    return row;
  });
}

/** GET /admin/v1/organizers: newest first (docs/operations.md, "Admin lists"). */
export async function listOrganizers(db: Executor, page: PageRequest) {
  return keysetPage(db, organizersListQuery(db), page, {
    table: 'organizers',
    sortColumn: 'created_at',
    direction: 'desc',
  });
}
