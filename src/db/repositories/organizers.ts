/** SQL for organizers (tenants). */
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { OrganizersTable } from '../schema.ts';

type OrganizerRow = Awaited<ReturnType<typeof findOrganizer>> & {};
/** An organizer with `currency_locked`: whether it has an order (its currency is then fixed). */
export type OrganizerSettingsRow = OrganizerRow & { currency_locked: boolean };

/** Whether the organizer `organizers.id` has an order (the orders_list_idx index answers it). */
const HAS_ORDERS = sql<boolean>`EXISTS (SELECT 1 FROM orders WHERE orders.organizer_id = organizers.id)`;

export function findOrganizer(db: Executor, id: string) {
  return db.selectFrom('organizers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The organizer with `currency_locked`. */
export function findOrganizerSettings(db: Executor, id: string): Promise<OrganizerSettingsRow | undefined> {
  return db
    .selectFrom('organizers')
    .selectAll()
    .select(HAS_ORDERS.as('currency_locked'))
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Every organizer with `currency_locked`, to page with keysetPage. */
export function organizersListQuery(db: Executor) {
  return db.selectFrom('organizers').selectAll().select(HAS_ORDERS.as('currency_locked'));
}

export function insertOrganizer(db: Executor, values: Insertable<OrganizersTable>) {
  return db.insertInto('organizers').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Updates the organizer; with a currency in `values`, only while the currency stays the
 * same or the organizer has no order. Undefined: no such organizer, or a currency change
 * refused (the caller tells them apart). The caller changing the currency holds the row
 * FOR UPDATE (lockOrganizerRow) and runs this as a later statement, so its snapshot sees
 * every order committed before the lock was granted (migrations/0018_organizer_contact.sql).
 */
export function updateOrganizer(
  db: Executor,
  id: string,
  values: Updateable<OrganizersTable>,
): Promise<OrganizerSettingsRow | undefined> {
  let query = db
    .updateTable('organizers')
    .set({ ...values, updated_at: new Date() })
    .where('id', '=', id);
  if (values.currency !== undefined) {
    const currency = values.currency;
    query = query.where((eb) => eb.or([eb('currency', '=', currency), eb.not(HAS_ORDERS)]));
  }
  return query.returningAll().returning(HAS_ORDERS.as('currency_locked')).executeTakeFirst();
}

/**
 * Locks the organizer row FOR UPDATE: the lock an order's insert waits on (its trigger
 * takes FOR KEY SHARE), and that waits for the orders being inserted.
 */
export function lockOrganizerRow(trx: Executor, id: string) {
  return trx.selectFrom('organizers').select(['id', 'currency']).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** How many orders the organizer has. */
export async function countOrdersOfOrganizer(db: Executor, id: string): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('organizer_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
