/**
 * Registration questions (admin API) and the answers a sale carries (docs/orders.md,
 * Registration answers).
 *
 * Questions belong to an event. `per_attendee` questions are answered once per ticket of
 * that event in the order (`ticket_no` = the ticket's position, "1".."N", or an integer);
 * the others once per order (no `ticket_no`). Labels are snapshotted into the answer, and a
 * multi-select answer also snapshots the labels of the chosen options (`value_labels`).
 */
import type { Executor } from '../../db/transaction.ts';
import type { QuestionOption, QuestionType } from '../../db/schema.ts';
import {
  eventQuestionsQuery,
  findEventOrganizer,
  findQuestion,
  insertQuestion,
  updateQuestion,
  type QuestionRow,
} from '../../db/repositories/questions.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { requireEvent } from '../catalog/events.ts';

const SELECT_TYPES: QuestionType[] = ['select', 'multi_select'];

interface CreateQuestionInput {
  key: string;
  label: string;
  type: QuestionType;
  options?: QuestionOption[];
  required?: boolean;
  per_attendee?: boolean;
}

function checkOptions(type: QuestionType, options: QuestionOption[] | undefined): QuestionOption[] {
  if (SELECT_TYPES.includes(type)) {
    if (!options || options.length === 0)
      throw invalid(
        'parameter_invalid',
        `\`options\` is required for a ${type} question: send at least one {key, label}.`,
        'options',
      );
    const seen = new Set<string>();
    for (const option of options) {
      if (seen.has(option.key))
        throw invalid(
          'parameter_invalid',
          `\`options\` has the key "${option.key}" twice; option keys must be unique.`,
          'options',
        );
      seen.add(option.key);
    }
    return options;
  }
  if (options !== undefined)
    throw invalid(
      'parameter_invalid',
      `\`options\` is only allowed for select and multi_select questions, not ${type}.`,
      'options',
    );
  return [];
}

export async function createQuestion(
  db: Executor,
  eventId: string,
  input: CreateQuestionInput,
  now: Date,
  /** The dashboard's organizer: another organizer's event is not found. The admin API passes none. */
  organizerId?: string,
) {
  const event = await findEventOrganizer(db, eventId);
  if (!event || (organizerId !== undefined && event.organizer_id !== organizerId)) throw notFound('Event');
  if (input.label.trim() === '') throw invalid('parameter_invalid', '`label` must not be blank.', 'label');
  const options = checkOptions(input.type, input.options);
  const row = await insertQuestion(db, {
    organizer_id: event.organizer_id,
    event_id: eventId,
    key: input.key,
    label: input.label,
    type: input.type,
    options: JSON.stringify(options),
    required: input.required ?? false,
    per_attendee: input.per_attendee ?? false,
    created_at: now,
    updated_at: now,
  });
  if (!row) throw conflict('resource_exists', `This event already has a question with the key "${input.key}".`, 'key');
  return row;
}

/**
 * GET /v1/events/{id}/questions: what a sale of the event asks, in the order the questions
 * were added (the order a form shows them in). An unknown or another organizer's event
 * answers 404, never an empty list; the cursor must be a question of this event.
 */
export async function listEventQuestions(db: Executor, organizerId: string, eventId: string, page: PageRequest) {
  await requireEvent(db, organizerId, eventId);
  return keysetPage(db, eventQuestionsQuery(db, organizerId, eventId), page, {
    table: 'registration_questions',
    sortColumn: 'created_at',
    direction: 'asc',
    organizerId,
    // The cursor must be a row of this event, not just of this organizer.
    parent: { column: 'event_id', id: eventId },
  });
}

interface UpdateQuestionInput {
  label?: string;
  required?: boolean;
  options?: QuestionOption[];
}

export async function patchQuestion(
  db: Executor,
  id: string,
  input: UpdateQuestionInput,
  now: Date,
  /** The dashboard's organizer: another organizer's question is not found. The admin API passes none. */
  organizerId?: string,
) {
  if (Object.keys(input).length === 0)
    throw invalid('empty_update', 'Send at least one of `label`, `required`, `options`.');
  const question = await findQuestion(db, id);
  if (!question || (organizerId !== undefined && question.organizer_id !== organizerId)) throw notFound('Question');
  if (input.label !== undefined && input.label.trim() === '')
    throw invalid('parameter_invalid', '`label` must not be blank.', 'label');
  const values: Parameters<typeof updateQuestion>[2] = { updated_at: now };
  if (input.label !== undefined) values.label = input.label;
  if (input.required !== undefined) values.required = input.required;
  if (input.options !== undefined) values.options = JSON.stringify(checkOptions(question.type, input.options));
  return updateQuestion(db, id, values);
}

// ---------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------

export interface AnswerInput {
  field_key: string;
  ticket_no?: string | number;
  value: string | string[];
}

/** A ticket the order will issue: its 1-based position and its event. */
interface PlannedTicket {
  position: number;
  eventId: string;
}

interface ResolvedAnswer {
  question: QuestionRow;
  /** The position of the ticket answered for; null for a per-order answer. */
  ticketPosition: number | null;
  value: string | string[];
  valueLabels: string[] | null;
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\.]+(?:\.[^\s@<>,;:"()[\]\\.]+)+$/;
const PHONE = /^\+?[0-9 ()./-]{5,32}$/;

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Checks one value against its question; returns the value labels (multi-select) or null. */
function checkValue(question: QuestionRow, value: string | string[], where: string): string[] | null {
  const options = question.options;
  if (question.type === 'multi_select') {
    if (!Array.isArray(value))
      throw invalid(
        'parameter_invalid',
        `${where}.value must be an array of option keys for the multi_select question "${question.key}".`,
      );
    const seen = new Set<string>();
    const labels: string[] = [];
    for (const key of value) {
      const option = options.find((o) => o.key === key);
      if (!option)
        throw invalid(
          'parameter_invalid',
          `${where}.value "${key}" is not an option of "${question.key}": use one of ${options.map((o) => o.key).join(', ')}.`,
        );
      if (seen.has(key)) throw invalid('parameter_invalid', `${where}.value lists "${key}" twice.`);
      seen.add(key);
      labels.push(option.label);
    }
    return labels;
  }
  if (typeof value !== 'string')
    throw invalid(
      'parameter_invalid',
      `${where}.value must be a string for the ${question.type} question "${question.key}".`,
    );
  const fail = (what: string) =>
    invalid(
      'parameter_invalid',
      `${where}.value "${value}" is not ${what}, as the ${question.type} question "${question.key}" requires.`,
    );
  switch (question.type) {
    case 'number':
      if (!NUMBER.test(value)) throw fail('a number (e.g. "42" or "-3.5")');
      break;
    case 'date':
      if (!isCalendarDate(value)) throw fail('a date (YYYY-MM-DD)');
      break;
    case 'email':
      if (!EMAIL.test(value) || value.length > 254) throw fail('an e-mail address');
      break;
    case 'phone':
      if (!PHONE.test(value) || (value.match(/\d/g)?.length ?? 0) < 5) throw fail('a phone number');
      break;
    case 'select':
      if (!options.some((o) => o.key === value))
        throw invalid(
          'parameter_invalid',
          `${where}.value "${value}" is not an option of "${question.key}": use one of ${options.map((o) => o.key).join(', ')}.`,
        );
      break;
    case 'text':
      break;
  }
  return null;
}

/** A blank answer (empty or whitespace text, an empty selection) counts as no answer. */
function isBlank(value: string | string[]): boolean {
  return Array.isArray(value) ? value.length === 0 : value.trim() === '';
}

/**
 * Validates the answers of a sale against the questions of its events and the tickets it
 * will issue. Throws 400 naming the answer for an unknown field_key, an unknown ticket_no,
 * a value of the wrong type, a duplicate, or a required question left unanswered.
 * Blank answers to optional questions are dropped.
 */
// eslint-disable-next-line max-lines-per-function -- the answer rules read as one checklist, in the order docs/orders.md gives them
export function resolveAnswers(
  questions: QuestionRow[],
  answers: AnswerInput[],
  tickets: PlannedTicket[],
): ResolvedAnswer[] {
  const resolved: ResolvedAnswer[] = [];
  const answered = new Set<string>(); // `${question.id}/${position|order}`
  const eventIds = new Set(tickets.map((t) => t.eventId));
  const orderQuestions = questions.filter((q) => eventIds.has(q.event_id));

  answers.forEach((answer, index) => {
    const where = `registration_answers[${index}]`;
    const withKey = orderQuestions.filter((q) => q.key === answer.field_key);
    if (withKey.length === 0) {
      throw invalid(
        'parameter_invalid',
        `${where}.field_key "${answer.field_key}" is not a registration question of the events in this order.`,
      );
    }
    if (answer.ticket_no !== undefined) {
      const text = String(answer.ticket_no);
      const position = /^[1-9]\d{0,5}$/.test(text) ? Number(text) : NaN;
      const ticket = tickets.find((t) => t.position === position);
      if (!ticket) {
        throw invalid(
          'parameter_invalid',
          `${where}.ticket_no "${text}" is not a ticket of this order: use 1 to ${tickets.length} (items in request order, quantities expanded).`,
        );
      }
      const question = withKey.find((q) => q.event_id === ticket.eventId);
      if (!question)
        throw invalid(
          'parameter_invalid',
          `${where}.field_key "${answer.field_key}" is not asked for ticket ${text}: its event has no such question.`,
        );
      if (!question.per_attendee)
        throw invalid('parameter_invalid', `${where}: "${question.key}" is asked once per order; omit ticket_no.`);
      const slot = `${question.id}/${position}`;
      if (answered.has(slot))
        throw invalid('parameter_invalid', `${where} answers "${question.key}" for ticket ${text} a second time.`);
      answered.add(slot);
      if (isBlank(answer.value)) return;
      resolved.push({
        question,
        ticketPosition: position,
        value: answer.value,
        valueLabels: checkValue(question, answer.value, where),
      });
      return;
    }
    const perOrder = withKey.filter((q) => !q.per_attendee);
    if (perOrder.length === 0)
      throw invalid(
        'parameter_invalid',
        `${where}: "${answer.field_key}" is asked per attendee; send ticket_no (1 to ${tickets.length}).`,
      );
    for (const question of perOrder) {
      const slot = `${question.id}/order`;
      if (answered.has(slot)) throw invalid('parameter_invalid', `${where} answers "${question.key}" a second time.`);
      answered.add(slot);
      if (isBlank(answer.value)) continue;
      resolved.push({
        question,
        ticketPosition: null,
        value: answer.value,
        valueLabels: checkValue(question, answer.value, where),
      });
    }
  });

  const given = new Set(resolved.map((a) => `${a.question.id}/${a.ticketPosition ?? 'order'}`));
  for (const question of orderQuestions.filter((q) => q.required)) {
    if (!question.per_attendee) {
      if (!given.has(`${question.id}/order`))
        throw invalid(
          'parameter_invalid',
          `The registration question "${question.key}" is required: add an answer with field_key "${question.key}".`,
        );
      continue;
    }
    for (const ticket of tickets.filter((t) => t.eventId === question.event_id)) {
      if (!given.has(`${question.id}/${ticket.position}`)) {
        throw invalid(
          'parameter_invalid',
          `The registration question "${question.key}" is required for every attendee: add an answer with field_key "${question.key}" and ticket_no "${ticket.position}".`,
        );
      }
    }
  }
  return resolved;
}
