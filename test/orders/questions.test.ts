/** Registration questions (admin) and the answers of POST /v1/orders (docs/orders.md, Registration answers). */
import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { orderBody, placeOrder, postOrder, setupSale, type Sale, useSale } from '../helpers/orders.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('registration questions and answers', () => {
  const t = useTestApp();
  const sale = useSale(t);
  const ask = (eventId: string, body: unknown) => t.admin('POST', `/admin/v1/events/${eventId}/questions`, body);

  test('creating a question: bad input first', async () => {
    const bad = async (body: unknown, detail: string, code: ErrorCode, param?: string) => {
      const res = await ask(sale.event.id, body);
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), problemOf(400, detail, code, param));
    };
    await bad({ label: 'Company', type: 'text' }, 'Missing required field `key` in body.', 'parameter_missing', 'key');
    await bad(
      { key: 'Company Name', label: 'Company', type: 'text' },
      '`key` must match pattern "^[a-z0-9]+(?:[_-][a-z0-9]+)*$".',
      'parameter_invalid',
      'key',
    );
    await bad(
      { key: 'company', label: 'Company', type: 'color' },
      '`type` must be one of: text, number, date, email, phone, select, multi_select.',
      'parameter_invalid',
      'type',
    );
    await bad(
      { key: 'size', label: 'Size', type: 'select' },
      '`options` is required for a select question: send at least one {key, label}.',
      'parameter_invalid',
      'options',
    );
    await bad(
      { key: 'size', label: 'Size', type: 'multi_select', options: [] },
      '`options` must have at least 1 item.',
      'parameter_invalid',
      'options',
    );
    await bad(
      { key: 'company', label: 'Company', type: 'text', options: [{ key: 'a', label: 'A' }] },
      '`options` is only allowed for select and multi_select questions, not text.',
      'parameter_invalid',
      'options',
    );
    await bad(
      {
        key: 'size',
        label: 'Size',
        type: 'select',
        options: [
          { key: 's', label: 'S' },
          { key: 's', label: 'Small' },
        ],
      },
      '`options` has the key "s" twice; option keys must be unique.',
      'parameter_invalid',
      'options',
    );
    await bad(
      { key: 'company', label: 'Company', type: 'text', color: 'red' },
      'Unknown field `color` in body.',
      'parameter_unknown',
      'color',
    );
    const unknown = await ask(UNKNOWN, { key: 'company', label: 'Company', type: 'text' });
    assert.deepEqual(unknown.json(), problemOf(404, 'Event not found.', 'resource_not_found'));
    const malformed = await ask('nope', { key: 'company', label: 'Company', type: 'text' });
    assert.deepEqual(malformed.json(), problemOf(404, 'Event not found.', 'resource_not_found'));
  });

  test('a question is created with defaults; a duplicate key answers 409; PATCH updates label, required and options', async () => {
    const event = await setupSale(t, { org: sale.org });
    const res = await ask(event.event.id, { key: 'company', label: 'Company', type: 'text' });
    assert.equal(res.statusCode, 201);
    const q = res.json();
    const now = t.clock.now().toISOString();
    assert.deepEqual(q, {
      id: q.id,
      object: 'registration_question',
      event_id: event.event.id,
      key: 'company',
      label: 'Company',
      type: 'text',
      options: [],
      required: false,
      per_attendee: false,
      created_at: now,
      updated_at: now,
    });
    const dup = await ask(event.event.id, { key: 'company', label: 'Firm', type: 'text' });
    assert.deepEqual(
      dup.json(),
      problemOf(409, 'This event already has a question with the key "company".', 'resource_exists', 'key'),
    );
    const patched = await t.admin('PATCH', `/admin/v1/questions/${q.id}`, { label: 'Company name', required: true });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().label, 'Company name');
    assert.equal(patched.json().required, true);
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/questions/${q.id}`, {})).json(),
      problemOf(400, 'Send at least one of `label`, `required`, `options`.', 'empty_update'),
    );
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/questions/${q.id}`, { options: [{ key: 'a', label: 'A' }] })).json(),
      problemOf(
        400,
        '`options` is only allowed for select and multi_select questions, not text.',
        'parameter_invalid',
        'options',
      ),
    );
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/questions/${UNKNOWN}`, { label: 'x' })).json(),
      problemOf(404, 'Question not found.', 'resource_not_found'),
    );
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/questions/${q.id}`, { type: 'number' })).json(),
      problemOf(400, 'Unknown field `type` in body.', 'parameter_unknown', 'type'),
    );
  });

  describe('answers on POST /v1/orders', () => {
    let s: Sale;
    before(async () => {
      s = await setupSale(t, { org: sale.org });
      const questions = [
        { key: 'company', label: 'Company', type: 'text' },
        { key: 'invoice-email', label: 'Invoice e-mail', type: 'email', required: true },
        {
          key: 'diet',
          label: 'Dietary needs',
          type: 'multi_select',
          per_attendee: true,
          options: [
            { key: 'vegan', label: 'Vegan' },
            { key: 'gluten-free', label: 'Gluten-free' },
            { key: 'halal', label: 'Halal' },
          ],
        },
        { key: 'age', label: 'Age', type: 'number', per_attendee: true, required: true },
        { key: 'birthday', label: 'Birthday', type: 'date' },
        { key: 'mobile', label: 'Mobile', type: 'phone' },
        {
          key: 'size',
          label: 'T-shirt size',
          type: 'select',
          options: [
            { key: 's', label: 'Small' },
            { key: 'm', label: 'Medium' },
          ],
        },
      ];
      for (const q of questions) {
        assert.equal((await ask(s.event.id, q)).statusCode, 201);
        t.clock.advance(1);
      }
    });

    const required = [
      { field_key: 'invoice-email', value: 'billing@example.test' },
      { field_key: 'age', ticket_no: '1', value: '34' },
      { field_key: 'age', ticket_no: 2, value: '9' },
    ];
    const bad = async (answers: unknown[], detail: string, code: ErrorCode, param?: string) => {
      const res = await postOrder(t, s.org.key, orderBody(s, { registration_answers: answers }, 2));
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), problemOf(400, detail, code, param));
    };

    test('required questions are enforced: once per order, and for every attendee', async () => {
      await bad(
        [],
        'The registration question "invoice-email" is required: add an answer with field_key "invoice-email".',
        'parameter_invalid',
      );
      await bad(
        [required[0]],
        'The registration question "age" is required for every attendee: add an answer with field_key "age" and ticket_no "1".',
        'parameter_invalid',
      );
      await bad(
        [required[0], required[1]],
        'The registration question "age" is required for every attendee: add an answer with field_key "age" and ticket_no "2".',
        'parameter_invalid',
      );
      await bad(
        [{ field_key: 'invoice-email', value: '  ' }, required[1], required[2]],
        'The registration question "invoice-email" is required: add an answer with field_key "invoice-email".',
        'parameter_invalid',
      );
    });

    test('unknown field_key and unknown ticket_no answer 400', async () => {
      await bad(
        [...required, { field_key: 'shoe-size', value: '42' }],
        'registration_answers[3].field_key "shoe-size" is not a registration question of the events in this order.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', ticket_no: '3', value: ['vegan'] }],
        'registration_answers[3].ticket_no "3" is not a ticket of this order: use 1 to 2 (items in request order, quantities expanded).',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', ticket_no: 0, value: ['vegan'] }],
        'registration_answers[3].ticket_no "0" is not a ticket of this order: use 1 to 2 (items in request order, quantities expanded).',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', ticket_no: 'A1', value: ['vegan'] }],
        'registration_answers[3].ticket_no "A1" is not a ticket of this order: use 1 to 2 (items in request order, quantities expanded).',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'company', ticket_no: '1', value: 'ACME' }],
        'registration_answers[3]: "company" is asked once per order; omit ticket_no.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', value: ['vegan'] }],
        'registration_answers[3]: "diet" is asked per attendee; send ticket_no (1 to 2).',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'age', ticket_no: '1', value: '35' }],
        'registration_answers[3] answers "age" for ticket 1 a second time.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'invoice-email', value: 'x@example.test' }],
        'registration_answers[3] answers "invoice-email" a second time.',
        'parameter_invalid',
      );
      // Another event's question is unknown here.
      const other = await setupSale(t, { org: s.org });
      assert.equal((await ask(other.event.id, { key: 'badge', label: 'Badge', type: 'text' })).statusCode, 201);
      await bad(
        [...required, { field_key: 'badge', value: 'x' }],
        'registration_answers[3].field_key "badge" is not a registration question of the events in this order.',
        'parameter_invalid',
      );
    });

    test('values are checked against the question type', async () => {
      await bad(
        [{ field_key: 'invoice-email', value: 'nope' }, required[1], required[2]],
        'registration_answers[0].value "nope" is not an e-mail address, as the email question "invoice-email" requires.',
        'parameter_invalid',
      );
      await bad(
        [required[0], { field_key: 'age', ticket_no: '1', value: 'old' }, required[2]],
        'registration_answers[1].value "old" is not a number (e.g. "42" or "-3.5"), as the number question "age" requires.',
        'parameter_invalid',
      );
      await bad(
        [required[0], { field_key: 'age', ticket_no: '1', value: ['34'] }, required[2]],
        'registration_answers[1].value must be a string for the number question "age".',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'birthday', value: '1990-02-30' }],
        'registration_answers[3].value "1990-02-30" is not a date (YYYY-MM-DD), as the date question "birthday" requires.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'mobile', value: 'call me' }],
        'registration_answers[3].value "call me" is not a phone number, as the phone question "mobile" requires.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'size', value: 'xl' }],
        'registration_answers[3].value "xl" is not an option of "size": use one of s, m.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', ticket_no: '1', value: 'vegan' }],
        'registration_answers[3].value must be an array of option keys for the multi_select question "diet".',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', ticket_no: '1', value: ['vegan', 'keto'] }],
        'registration_answers[3].value "keto" is not an option of "diet": use one of vegan, gluten-free, halal.',
        'parameter_invalid',
      );
      await bad(
        [...required, { field_key: 'diet', ticket_no: '1', value: ['vegan', 'vegan'] }],
        'registration_answers[3].value lists "vegan" twice.',
        'parameter_invalid',
      );
      const wrongType = await postOrder(
        t,
        s.org.key,
        orderBody(s, { registration_answers: [{ field_key: 'age', ticket_no: '1', value: 34 }] }, 2),
      );
      assert.equal(wrongType.statusCode, 400);
    });

    test('answers are stored with label snapshots, real ticket numbers and value_labels; shown on order detail', async () => {
      const order = await placeOrder(
        t,
        s,
        {
          registration_answers: [
            ...required,
            { field_key: 'diet', ticket_no: '2', value: ['halal', 'vegan'] },
            { field_key: 'size', value: 'm' },
            { field_key: 'birthday', value: '1990-02-28' },
            { field_key: 'mobile', value: '+49 30 1234567' },
            { field_key: 'company', value: '' },
          ],
        },
        2,
      );
      const [first, second] = order.transactions[0].items;
      const expected = [
        {
          object: 'registration_answer',
          key: 'invoice-email',
          label: 'Invoice e-mail',
          ticket_no: null,
          value: 'billing@example.test',
          value_labels: null,
        },
        {
          object: 'registration_answer',
          key: 'age',
          label: 'Age',
          ticket_no: first.ticket_no,
          value: '34',
          value_labels: null,
        },
        {
          object: 'registration_answer',
          key: 'age',
          label: 'Age',
          ticket_no: second.ticket_no,
          value: '9',
          value_labels: null,
        },
        {
          object: 'registration_answer',
          key: 'diet',
          label: 'Dietary needs',
          ticket_no: second.ticket_no,
          value: ['halal', 'vegan'],
          value_labels: ['Halal', 'Vegan'],
        },
        {
          object: 'registration_answer',
          key: 'size',
          label: 'T-shirt size',
          ticket_no: null,
          value: 'm',
          value_labels: null,
        },
        {
          object: 'registration_answer',
          key: 'birthday',
          label: 'Birthday',
          ticket_no: null,
          value: '1990-02-28',
          value_labels: null,
        },
        {
          object: 'registration_answer',
          key: 'mobile',
          label: 'Mobile',
          ticket_no: null,
          value: '+49 30 1234567',
          value_labels: null,
        },
      ];
      assert.deepEqual(order.registration_answers, expected);
      const detail = await t.api(s.org.key, 'GET', `/v1/orders/${order.id}`);
      assert.deepEqual(detail.json().registration_answers, expected);

      // A relabelled question: later answers snapshot the new label, old ones keep theirs.
      const questions = await t.database.db
        .selectFrom('registration_questions')
        .select(['id', 'key'])
        .where('event_id', '=', s.event.id)
        .execute();
      const ageId = questions.find((q) => q.key === 'age')!.id;
      assert.equal(
        (await t.admin('PATCH', `/admin/v1/questions/${ageId}`, { label: 'Age on the day' })).statusCode,
        200,
      );
      const later = await placeOrder(
        t,
        s,
        { registration_answers: [required[0], { field_key: 'age', ticket_no: '1', value: '40' }] },
        1,
      );
      assert.equal(later.registration_answers[1].label, 'Age on the day');
      const again = await t.api(s.org.key, 'GET', `/v1/orders/${order.id}`);
      assert.equal(again.json().registration_answers[1].label, 'Age');
    });

    test('an optional question may be skipped; an event without questions gives []', async () => {
      const order = await placeOrder(
        t,
        s,
        { registration_answers: [required[0], { field_key: 'age', ticket_no: 1, value: '20' }] },
        1,
      );
      assert.equal(order.registration_answers.length, 2);
      const plain = await placeOrder(t, sale);
      assert.deepEqual(plain.registration_answers, []);
    });
  });
});
