import { Type } from '@sinclair/typebox';
import type { QuestionType } from '../../db/schema.ts';
import { ListOf, PaginationQuery, Timestamp, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';

const QUESTION_TYPES = ['text', 'number', 'date', 'email', 'phone', 'select', 'multi_select'] as const;

const Slug = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9]+(?:[_-][a-z0-9]+)*$',
  description: 'lower-case slug',
});
const Label = Type.String({ minLength: 1, maxLength: 500 });
const QuestionOption = Type.Object({ key: Slug, label: Label }, { additionalProperties: false });
const Options = Type.Array(QuestionOption, { minItems: 1, maxItems: 100 });

const QuestionTypeEnum = Type.Unsafe<QuestionType>({
  type: 'string',
  enum: [...QUESTION_TYPES],
  description:
    'what the answer is: `text`, `number`, `date` (YYYY-MM-DD), `email`, `phone`, `select` (one option key) or `multi_select` (an array of option keys)',
});

export const RegistrationQuestion = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('registration_question'),
    event_id: Uuid,
    key: Type.String({ description: 'the slug an answer names as `field_key`' }),
    label: Type.String(),
    type: QuestionTypeEnum,
    options: Type.Array(Type.Object({ key: Type.String(), label: Type.String() }), {
      description: 'the choices of a select or multi_select question; empty for the other types',
    }),
    required: Type.Boolean({ description: 'a sale without an answer to it answers 400' }),
    per_attendee: Type.Boolean({
      description: 'answered once per ticket of the event (`ticket_no` 1..N), else once per order',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'RegistrationQuestion',
    description: 'A question a sale of the event asks (docs/orders.md, "Registration answers")',
    examples: [EXAMPLES.registrationQuestion],
  },
);
export const RegistrationQuestionList = ListOf(RegistrationQuestion, 'RegistrationQuestionList');
export const ListQuestionsQuery = Type.Object(PaginationQuery);

export const CreateQuestion = Type.Object(
  {
    key: Slug,
    label: Label,
    type: Type.Unsafe<QuestionType>({ type: 'string', enum: [...QUESTION_TYPES] }),
    options: Type.Optional(Options),
    required: Type.Optional(Type.Boolean({ default: false })),
    per_attendee: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const UpdateQuestion = Type.Object(
  { label: Type.Optional(Label), required: Type.Optional(Type.Boolean()), options: Type.Optional(Options) },
  { additionalProperties: false },
);

export const RegistrationAnswer = Type.Object(
  {
    object: Type.Literal('registration_answer'),
    key: Type.String(),
    label: Type.String(),
    ticket_no: Type.Union([Type.String(), Type.Null()]),
    value: Type.Union([Type.String(), Type.Array(Type.String())]),
    value_labels: Type.Union([Type.Array(Type.String()), Type.Null()]),
  },
  { $id: 'RegistrationAnswer', description: 'An answer to a registration question, for the order or one attendee' },
);
