/**
 * The dashboard's catalog operations (docs/dashboard.md, "Box office and catalog operations"): adding
 * performances and ticket types to an existing event, registration questions and hold
 * allocations. They have no /v1 counterpart, so they go through the dashboard's own
 * client (./dashboard.ts), with the session's CSRF token; POST and PATCH carry the form's
 * Idempotency-Key, so a double click replays the first answer (docs/idempotency.md).
 */
import { useRef } from 'preact/hooks';
import type { RegistrationQuestion } from '@marquee/sdk';
import type { operations } from '../generated/dashboard.ts';
import { answer, dashboard } from './dashboard.ts';

/** The JSON body an operation takes, as the generated types say it. */
type BodyOf<O extends keyof operations> = operations[O] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The JSON body of an operation's answer with `status`. */
type AnswerOf<O extends keyof operations, S extends number> = operations[O] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

/** One performance of `POST /events/{id}/performances`, as `POST /v1/events` takes it. */
export type PerformanceItem = BodyOf<'addPerformances'>['performances'][number];
/** One ticket type of `POST /events/{id}/ticket_types`: priced at `price_minor` on every performance. */
export type TicketTypeItem = BodyOf<'addTicketTypes'>['ticket_types'][number];
export type CreateQuestionBody = BodyOf<'createQuestion'>;
export type UpdateQuestionBody = BodyOf<'updateQuestion'>;
export type QuestionType = RegistrationQuestion['type'];
export type QuestionOption = RegistrationQuestion['options'][number];
/** A hold: an allocation keeps seats off sale until released (docs/dashboard.md). */
export type Hold = AnswerOf<'createHold', 201>;

const path = (id: string) => ({ params: { path: { id } } });
const keyed = (id: string, idempotencyKey: string) => ({
  params: { path: { id }, header: { 'idempotency-key': idempotencyKey } },
});

export const addPerformances = (eventId: string, performances: PerformanceItem[], idempotencyKey: string) =>
  answer(
    dashboard.POST('/dashboard/v1/events/{id}/performances', {
      ...keyed(eventId, idempotencyKey),
      body: { performances },
    }),
  );

export const addTicketTypes = (eventId: string, ticketTypes: TicketTypeItem[], idempotencyKey: string) =>
  answer(
    dashboard.POST('/dashboard/v1/events/{id}/ticket_types', {
      ...keyed(eventId, idempotencyKey),
      body: { ticket_types: ticketTypes },
    }),
  );

export const createQuestion = (eventId: string, question: CreateQuestionBody, idempotencyKey: string) =>
  answer(dashboard.POST('/dashboard/v1/events/{id}/questions', { ...keyed(eventId, idempotencyKey), body: question }));

export const updateQuestion = (id: string, change: UpdateQuestionBody, idempotencyKey: string) =>
  answer(dashboard.PATCH('/dashboard/v1/questions/{id}', { ...keyed(id, idempotencyKey), body: change }));

/** The performance's active holds, newest first (an organizer keeps a handful: the first 100). */
export const listHolds = (performanceId: string) =>
  answer(
    dashboard.GET('/dashboard/v1/performances/{id}/holds', {
      params: { path: { id: performanceId }, query: { limit: 100 } },
    }),
  );

export const createHold = (
  performanceId: string,
  hold: { quantity: number; ticket_type_id?: string },
  idempotencyKey: string,
) =>
  answer(
    dashboard.POST('/dashboard/v1/performances/{id}/holds', {
      ...keyed(performanceId, idempotencyKey),
      body: { kind: 'allocation', ...hold },
    }),
  );

export const releaseHold = (id: string) => answer(dashboard.DELETE('/dashboard/v1/holds/{id}', path(id)));

/**
 * The Idempotency-Key of a form: the same body sent again (a double click, a resend after
 * no answer) reuses the key, so the API replays its first answer; a changed body, or any
 * body after `reset()` (the form emptied after a success), gets a new one.
 */
export function useRequestKey(): { keyFor: (body: unknown) => string; reset: () => void } {
  const last = useRef<{ key: string; body: string } | undefined>(undefined);
  return {
    keyFor: (body) => {
      const text = JSON.stringify(body);
      if (last.current?.body !== text) last.current = { key: crypto.randomUUID(), body: text };
      return last.current.key;
    },
    reset: () => {
      last.current = undefined;
    },
  };
}
