/**
 * The dashboard's catalog operations (docs/dashboard.md, "Catalog and holds"): adding
 * performances and ticket types to an existing event, registration questions and hold
 * allocations. They have no /v1 counterpart, so they go through the dashboard's own
 * client (./dashboard.ts), with the session's CSRF token; POST and PATCH carry the form's
 * Idempotency-Key, so a double click replays the first answer (docs/idempotency.md).
 */
import { useRef } from 'preact/hooks';
import type { EventDetail, RegistrationQuestion } from '@marquee/sdk';
import { answer, currentCsrfToken, sessionFetch } from './dashboard.ts';

/** One performance of `POST /events/{id}/performances`, as `POST /v1/events` takes it. */
export interface PerformanceItem {
  starts_at: string;
  ends_at?: string;
  capacity: number;
  title?: string;
}

/** One ticket type of `POST /events/{id}/ticket_types`: priced at `price_minor` on every performance. */
export interface TicketTypeItem {
  name: string;
  description?: string;
  price_minor: number;
  quantity?: number | null;
}

export type QuestionType = RegistrationQuestion['type'];
export type QuestionOption = RegistrationQuestion['options'][number];

export interface CreateQuestionBody {
  key: string;
  label: string;
  type: QuestionType;
  options?: QuestionOption[];
  required?: boolean;
  per_attendee?: boolean;
}

export interface UpdateQuestionBody {
  label?: string;
  required?: boolean;
  options?: QuestionOption[];
}

/** A hold allocation: seats kept off sale until released (docs/dashboard.md). */
export interface Hold {
  id: string;
  object: 'hold';
  performance_id: string;
  ticket_type_id: string | null;
  kind: 'cart' | 'allocation';
  quantity: number;
  expires_at: string | null;
  released_at: string | null;
  created_at: string;
}

interface HoldList {
  object: 'list';
  data: Hold[];
  has_more: boolean;
}

/** A call of the dashboard API: the answer's body, or the refusal thrown as MarqueeApiError. */
function call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const token = currentCsrfToken();
  if (method !== 'GET' && token !== undefined) headers['x-csrf-token'] = token;
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return answer<T>(
    (async () => {
      const response = await sessionFetch(`${window.location.origin}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      let json: unknown = text;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        // not JSON: answer() shows the text as it is
      }
      return response.ok ? { data: json as T, response } : { error: json, response };
    })(),
  );
}

const at = (path: string, id: string) => `/dashboard/v1${path.replace('{id}', encodeURIComponent(id))}`;

export const addPerformances = (eventId: string, performances: PerformanceItem[], idempotencyKey: string) =>
  call<EventDetail>('POST', at('/events/{id}/performances', eventId), { performances }, idempotencyKey);

export const addTicketTypes = (eventId: string, ticketTypes: TicketTypeItem[], idempotencyKey: string) =>
  call<EventDetail>('POST', at('/events/{id}/ticket_types', eventId), { ticket_types: ticketTypes }, idempotencyKey);

export const createQuestion = (eventId: string, question: CreateQuestionBody, idempotencyKey: string) =>
  call<RegistrationQuestion>('POST', at('/events/{id}/questions', eventId), question, idempotencyKey);

export const updateQuestion = (id: string, change: UpdateQuestionBody, idempotencyKey: string) =>
  call<RegistrationQuestion>('PATCH', at('/questions/{id}', id), change, idempotencyKey);

/** The performance's active holds, newest first (an organizer keeps a handful: the first 100). */
export const listHolds = (performanceId: string) =>
  call<HoldList>('GET', `${at('/performances/{id}/holds', performanceId)}?limit=100`);

export const createHold = (
  performanceId: string,
  hold: { quantity: number; ticket_type_id?: string },
  idempotencyKey: string,
) => call<Hold>('POST', at('/performances/{id}/holds', performanceId), { kind: 'allocation', ...hold }, idempotencyKey);

export const releaseHold = (id: string) => call<Hold>('DELETE', at('/holds/{id}', id));

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
