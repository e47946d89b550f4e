/** The public shapes of registration questions and answers (schemas RegistrationQuestion and RegistrationAnswer). */
import type { AnswerRow, QuestionRow } from '../../db/repositories/questions.ts';

export function presentQuestion(row: QuestionRow) {
  return {
    id: row.id,
    object: 'registration_question' as const,
    event_id: row.event_id,
    key: row.key,
    label: row.label,
    type: row.type,
    options: row.options,
    required: row.required,
    per_attendee: row.per_attendee,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentAnswer(row: AnswerRow) {
  return {
    object: 'registration_answer' as const,
    key: row.key,
    label: row.label,
    ticket_no: row.ticket_no,
    value: row.value,
    value_labels: row.value_labels ?? null,
  };
}
