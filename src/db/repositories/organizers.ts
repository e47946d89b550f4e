/** SQL for organizers (tenants). */
import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { OrganizersTable } from '../schema.ts';

export type OrganizerRow = Awaited<ReturnType<typeof findOrganizer>> & {};

export function findOrganizer(db: Executor, id: string) {
  return db.selectFrom('organizers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every organizer, to page with keysetPage. */
export function organizersListQuery(db: Executor) {
  return db.selectFrom('organizers').selectAll();
}

export function insertOrganizer(db: Executor, values: Insertable<OrganizersTable>) {
  return db.insertInto('organizers').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateOrganizer(db: Executor, id: string, values: Updateable<OrganizersTable>) {
  return db
    .updateTable('organizers')
    .set({ ...values, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
