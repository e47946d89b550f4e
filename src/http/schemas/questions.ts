import { Type } from '@sinclair/typebox';
import type { QuestionType } from '../../db/schema.ts';
import { Timestamp, Uuid } from './common.ts';

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

export const RegistrationQuestion = Type.Object({
  id: Uuid,
  object: Type.Literal('registration_question'),
  event_id: Uuid,
  key: Type.String(),
  label: Type.String(),
  type: Type.String(),
  options: Type.Array(Type.Object({ key: Type.String(), label: Type.String() })),
  required: Type.Boolean(),
  per_attendee: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

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
