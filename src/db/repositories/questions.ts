/** SQL for registration questions and the answers stored with orders. */
import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { RegistrationAnswersTable, RegistrationQuestionsTable } from '../schema.ts';

export type QuestionRow = Awaited<ReturnType<typeof findQuestion>> & {};
export type AnswerRow = Awaited<ReturnType<typeof findAnswersOfOrder>>[number];

export function findEventOrganizer(db: Executor, eventId: string) {
  return db.selectFrom('events').select(['id', 'organizer_id']).where('id', '=', eventId).executeTakeFirst();
}

export function insertQuestion(db: Executor, values: Insertable<RegistrationQuestionsTable>) {
  return db
    .insertInto('registration_questions')
    .values(values)
    .onConflict((oc) => oc.constraint('registration_questions_key_uq').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findQuestion(db: Executor, id: string) {
  return db.selectFrom('registration_questions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function updateQuestion(db: Executor, id: string, values: Updateable<RegistrationQuestionsTable>) {
  return db
    .updateTable('registration_questions')
    .set(values)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** An event's questions in the order they were added, to page with keysetPage (GET /v1/events/{id}/questions). */
export function eventQuestionsQuery(db: Executor, organizerId: string, eventId: string) {
  return db
    .selectFrom('registration_questions')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('event_id', '=', eventId);
}

/** The questions of the given events, in the order they were asked to be added. */
export function findQuestionsOfEvents(db: Executor, organizerId: string, eventIds: string[]) {
  return db
    .selectFrom('registration_questions')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('event_id', 'in', eventIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Inserts a sale's answers, returning them (as findAnswersOfOrder would read them): a
 * statement to run (execute()) or to send ahead in a pipeline (src/db/transaction.ts).
 */
export function answersInsert(db: Executor, values: Insertable<RegistrationAnswersTable>[]) {
  return db.insertInto('registration_answers').values(values).returningAll();
}

export function findAnswersOfOrder(db: Executor, orderId: string) {
  return db
    .selectFrom('registration_answers')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute();
}
