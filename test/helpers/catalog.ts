/**
 * Catalog test data: createEvent() POSTs /v1/events and returns the 201 body (the event
 * detail, with ticket_types[].prices[].performance_id naming the performances).
 * Defaults: a unique title, venue {name: "Main Hall"}, one performance a week after the
 * test clock's now with capacity 100, one ticket type "General" at 2500 minor units,
 * uncapped, published. `overrides` replace top-level fields of that body.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestApp } from './app.ts';

export interface CreatedEvent {
  id: string;
  object: 'event';
  title: string;
  description: string | null;
  admission_type: string;
  image_url: string | null;
  contact_email: string | null;
  timezone: string;
  venue_id: string;
  category_id: string;
  status: 'draft' | 'published';
  is_archived: boolean;
  translations: { locale: string; title: string; description: string | null }[];
  created_at: string;
  updated_at: string;
  ticket_types: {
    id: string;
    object: 'ticket_type';
    name: string;
    description: string | null;
    sort_order: number;
    translations: { locale: string; name: string; description: string | null }[];
    updated_at: string;
    prices: {
      performance_id: string;
      seat_category_key: string;
      price_minor: number;
      limited_quantity: number | null;
      is_active: boolean;
    }[];
  }[];
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** The default POST /v1/events body for this test app (a fresh title each call). */
export function eventBody(t: TestApp, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: `Test Event ${randomUUID().slice(0, 8)}`,
    venue: { name: 'Main Hall' },
    performances: [{ starts_at: new Date(t.clock.now().getTime() + WEEK_MS).toISOString(), capacity: 100 }],
    ticket_types: [{ name: 'General', price_minor: 2500, quantity: null }],
    ...overrides,
  };
}

/** Creates an event through the API; throws unless it answers 201. */
export async function createEvent(
  t: TestApp,
  key: string,
  overrides: Record<string, unknown> = {},
): Promise<CreatedEvent> {
  const res = await t.api(key, 'POST', '/v1/events', eventBody(t, overrides));
  if (res.statusCode !== 201) throw new Error(`event create failed (${res.statusCode}): ${res.body}`);
  return res.json<CreatedEvent>();
}

/** The ids of the event's performances, in schedule order (from its first ticket type's prices). */
export function performanceIdsOf(event: CreatedEvent): string[] {
  return event.ticket_types[0]!.prices.map((p) => p.performance_id);
}

/** A question as the admin API's 201 shows it (the fields tests read). */
export type CreatedQuestion = { id: string; created_at: string } & Record<string, unknown>;

/** The options of the dietary select question the tests use. */
export const DIET_OPTIONS = [
  { key: 'none', label: 'None' },
  { key: 'vegan', label: 'Vegan' },
];

/** Two registration questions: a once-per-order text and a required per-attendee select. */
export const COMPANY_AND_DIET_QUESTIONS = [
  { key: 'company', label: 'Company', type: 'text' },
  {
    key: 'dietary',
    label: 'Dietary requirements',
    type: 'select',
    options: DIET_OPTIONS,
    required: true,
    per_attendee: true,
  },
];

/**
 * Adds questions to an event through the admin API, in order (before each, `beforeEach`
 * runs, e.g. to move the clock), asserting every 201; returns the created questions.
 */
export async function addQuestions(
  t: TestApp,
  eventId: string,
  bodies: Record<string, unknown>[],
  beforeEach: () => void = () => undefined,
): Promise<CreatedQuestion[]> {
  const created: CreatedQuestion[] = [];
  for (const body of bodies) {
    beforeEach();
    const res = await t.admin('POST', `/admin/v1/events/${eventId}/questions`, body);
    assert.equal(res.statusCode, 201, res.body);
    created.push(res.json<CreatedQuestion>());
  }
  return created;
}
