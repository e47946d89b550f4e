/**
 * GET /v1/events/{id}/questions (docs/orders.md, "Registration answers"): what a sale of
 * the event asks, in the order the questions were added, paginated; an unknown, malformed
 * or foreign event is 404; the cursor must be a question of this event; read scope.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';
import {
  addQuestions,
  COMPANY_AND_DIET_QUESTIONS,
  createEvent,
  DIET_OPTIONS,
  type CreatedEvent,
  type CreatedQuestion,
} from '../helpers/catalog.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('GET /v1/events/{id}/questions', () => {
  const t = useTestApp();
  const org = useOrganizer(t);
  const other = useOrganizer(t);
  let event: CreatedEvent;
  let second: CreatedEvent;
  const questions: CreatedQuestion[] = [];

  before(async () => {
    event = await createEvent(t, org.key);
    second = await createEvent(t, org.key, { title: 'Another night' });
    questions.push(
      ...(await addQuestions(
        t,
        event.id,
        [...COMPANY_AND_DIET_QUESTIONS, { key: 'birthday', label: 'Birthday', type: 'date', per_attendee: true }],
        () => t.clock.advance(1000),
      )),
    );
    const elsewhere = await t.admin('POST', `/admin/v1/events/${second.id}/questions`, {
      key: 'company',
      label: 'Firm',
      type: 'text',
    });
    assert.equal(elsewhere.statusCode, 201);
  });

  test('the event questions in the order they were added, exactly as the admin API created them', async () => {
    const res = await t.api(org.key, 'GET', `/v1/events/${event.id}/questions`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { object: 'list', data: questions, has_more: false });
    assert.deepEqual(questions[1], {
      id: questions[1]!.id,
      object: 'registration_question',
      event_id: event.id,
      key: 'dietary',
      label: 'Dietary requirements',
      type: 'select',
      options: DIET_OPTIONS,
      required: true,
      per_attendee: true,
      created_at: questions[1]!.created_at,
      updated_at: questions[1]!.created_at,
    });
    // A read-only key may list them; an event without questions is an empty list.
    assert.equal((await t.api(org.readKey, 'GET', `/v1/events/${event.id}/questions`)).statusCode, 200);
    const none = await createEvent(t, org.key, { title: 'Quiet night' });
    assert.deepEqual((await t.api(org.key, 'GET', `/v1/events/${none.id}/questions`)).json(), {
      object: 'list',
      data: [],
      has_more: false,
    });
  });

  test('pages follow the cursor; a cursor of another event is refused', async () => {
    const first = (await t.api(org.key, 'GET', `/v1/events/${event.id}/questions?limit=2`)).json();
    assert.deepEqual(first, { object: 'list', data: questions.slice(0, 2), has_more: true });
    const next = (
      await t.api(org.key, 'GET', `/v1/events/${event.id}/questions?limit=2&starting_after=${questions[1]!.id}`)
    ).json();
    assert.deepEqual(next, { object: 'list', data: questions.slice(2), has_more: false });

    const foreign = (await t.api(org.key, 'GET', `/v1/events/${second.id}/questions`)).json().data[0].id;
    const res = await t.api(org.key, 'GET', `/v1/events/${event.id}/questions?starting_after=${foreign}`);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      problemOf(
        400,
        `starting_after \`${foreign}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ),
    );
  });

  test('an unknown, malformed or foreign event is 404; the write-only key lacks read', async () => {
    for (const [key, id] of [
      [org.key, UNKNOWN],
      [org.key, 'not-a-uuid'],
      [other.key, event.id],
    ] as const) {
      const res = await t.api(key, 'GET', `/v1/events/${id}/questions`);
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), problemOf(404, 'Event not found.', 'resource_not_found'));
    }
    const res = await t.api(org.writeKey, 'GET', `/v1/events/${event.id}/questions`);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'forbidden_scope');
  });
});
