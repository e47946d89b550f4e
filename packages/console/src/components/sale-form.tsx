/**
 * The sale itself (POST /v1/orders): quantities per ticket type with what remains (live),
 * the buyer, the tender and the event's registration questions.
 *
 * Sent once: the form holds one Idempotency-Key from the moment it opens; sending the same
 * request again (a double click, a retry after a lost answer) reuses it, so the API replays
 * the first sale instead of making a second (docs/idempotency.md); a changed request gets a
 * new key. The button is disabled while a request is in flight, and a guard that does not
 * wait for a re-render drops a second submit that arrives before the button is.
 */
import { useRef, useState } from 'preact/hooks';
import type { CreateOrderRequest, OrderDetail, Performance, RegistrationQuestion } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { loadOrderContext, type OrderContext } from './order-view.tsx';
import { QuestionInput, TypedInput, type AnswerValue } from './question-input.tsx';
import { useAvailability } from '../lib/availability.ts';
import { money } from '../lib/format.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { useSession } from '../lib/session.ts';
import type { Catalog } from '../screens/sell.tsx';
import { NumCol } from './table-headers.tsx';

export interface Sold {
  order: OrderDetail;
  context: OrderContext;
}

type Tender = CreateOrderRequest['tender'];
const TENDERS: { value: Tender; label: string }[] = [
  { value: 'cash', label: 'Cash (paid now)' },
  { value: 'pay_later', label: 'Pay later (unpaid)' },
  { value: 'free', label: 'Free (the total must be zero)' },
];
const BUYER_FIELDS = ['first_name', 'last_name', 'email', 'phone'] as const;

/** The id of a question's control: once per order, or for the attendee of ticket `n`. */
const answerId = (question: RegistrationQuestion, n?: number) =>
  n === undefined ? `answer-${question.key}` : `answer-${question.key}-${n}`;

export function SaleForm({
  catalog,
  performance,
  onSold,
}: {
  catalog: Catalog;
  performance: Performance;
  onSold: (sold: Sold) => void;
}) {
  const { client, organizer } = useSession();
  const { event, questions } = catalog;
  const currency = organizer.currency;
  const live = useAvailability(client, [performance.id]);
  const availability = live.byPerformance[performance.id];
  const types = event.ticket_types.filter((t) =>
    t.prices.some((p) => p.performance_id === performance.id && p.is_active),
  );
  const [quantities, setQuantities] = useState<Record<string, string>>({});
  const [buyer, setBuyer] = useState<Record<(typeof BUYER_FIELDS)[number], string>>({
    first_name: '',
    last_name: '',
    email: '',
    phone: '',
  });
  const [tender, setTender] = useState<Tender>('cash');
  const [answers, setAnswers] = useState<Record<string, AnswerValue>>({});
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  // The key of this form's sale, made when the form opens (docs/console.md, "Sell").
  const attempt = useRef<{ key: string; body?: string }>({ key: crypto.randomUUID() });
  // What the n-th item and answer sent were, to put the API's `items.N…`/`registration_answers.N…` beside them.
  const sent = useRef<{ items: string[]; answers: string[] }>({ items: [], answers: [] });
  const errors = useFormErrors((param) => {
    const [head, index] = param.split('.');
    if (head === 'buyer') return param;
    if (head === 'tender') return 'tender';
    if (head === 'items') return sent.current.items[Number(index)];
    if (head === 'registration_answers') return sent.current.answers[Number(index)];
    return undefined;
  });

  const tickets = types.reduce((n, t) => n + (Number(quantities[t.id]) || 0), 0);
  const attendees = Array.from({ length: Math.min(tickets, 50) }, (_, i) => i + 1);
  const perOrder = questions.filter((q) => !q.per_attendee);
  const perAttendee = questions.filter((q) => q.per_attendee);
  const total = types.reduce((sum, t) => {
    const price = t.prices.find((p) => p.performance_id === performance.id)?.price_minor ?? 0;
    return sum + price * (Number(quantities[t.id]) || 0);
  }, 0);

  const request = (): CreateOrderRequest | undefined => {
    const items = types
      .filter((t) => (Number(quantities[t.id]) || 0) > 0)
      .map((t) => ({ performance_id: performance.id, ticket_type_id: t.id, quantity: Number(quantities[t.id]) }));
    if (items.length === 0) {
      errors.failField(`quantity-${types[0]?.id ?? ''}`, 'Choose how many tickets to sell.');
      return undefined;
    }
    const registrationAnswers: NonNullable<CreateOrderRequest['registration_answers']> = [];
    const answerFields: string[] = [];
    const add = (question: RegistrationQuestion, n?: number): boolean => {
      const value = answers[answerId(question, n)];
      const blank = value === undefined || (Array.isArray(value) ? value.length === 0 : value.trim() === '');
      if (blank) {
        // The browser enforces required inputs; a multi-select needs this check.
        if (!question.required) return true;
        errors.failField(answerId(question, n), 'Choose at least one option: this question is required.');
        return false;
      }
      registrationAnswers.push({
        field_key: question.key,
        ...(n === undefined ? {} : { ticket_no: String(n) }),
        value,
      });
      answerFields.push(answerId(question, n));
      return true;
    };
    for (const q of perOrder) if (!add(q)) return undefined;
    for (const n of attendees) for (const q of perAttendee) if (!add(q, n)) return undefined;
    sent.current = { items: items.map((i) => `quantity-${i.ticket_type_id}`), answers: answerFields };
    return {
      items,
      buyer: {
        first_name: buyer.first_name.trim(),
        email: buyer.email.trim(),
        ...(buyer.last_name.trim() !== '' ? { last_name: buyer.last_name.trim() } : {}),
        ...(buyer.phone.trim() !== '' ? { phone: buyer.phone.trim() } : {}),
      },
      tender,
      ...(registrationAnswers.length > 0 ? { registration_answers: registrationAnswers } : {}),
    };
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (inFlight.current) return;
    errors.clear();
    const body = request();
    if (body === undefined) return;
    const text = JSON.stringify(body);
    if (attempt.current.body !== undefined && attempt.current.body !== text)
      attempt.current = { key: crypto.randomUUID() };
    attempt.current.body = text;
    inFlight.current = true;
    setBusy(true);
    try {
      const order = await client.orders.create(body, { idempotencyKey: attempt.current.key });
      onSold({ order, context: await loadOrderContext(client, order) });
    } catch (err) {
      errors.fail(err);
      live.refresh();
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Sale">
      <fieldset>
        <legend>Tickets</legend>
        <p class="hint" aria-live="polite">
          Remaining for this performance: {availability?.performance_remaining ?? '…'} (refreshed every 5 seconds)
        </p>
        <ErrorNotice error={live.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">Ticket type</th>
              <NumCol>Price</NumCol>
              <NumCol>Remaining</NumCol>
              <th scope="col">Quantity</th>
            </tr>
          </thead>
          <tbody>
            {types.map((t) => {
              const price = t.prices.find((p) => p.performance_id === performance.id)?.price_minor ?? 0;
              const remaining = availability?.ticket_types.find((a) => a.ticket_type_id === t.id)?.remaining;
              const field = `quantity-${t.id}`;
              const id = fieldId(field);
              return (
                <tr key={t.id}>
                  <th scope="row">
                    <label for={id}>{t.name}</label>
                  </th>
                  <td class="num">{money(price, currency)}</td>
                  <td class="num" data-testid={`remaining-${t.name}`}>
                    {remaining ?? '…'}
                  </td>
                  <td>
                    <input
                      id={id}
                      type="number"
                      min={0}
                      max={50}
                      inputMode="numeric"
                      value={quantities[t.id] ?? ''}
                      aria-invalid={errors.of(field) !== undefined ? 'true' : undefined}
                      aria-describedby={errors.of(field) !== undefined ? `${id}-error` : undefined}
                      onInput={(e) => setQuantities({ ...quantities, [t.id]: e.currentTarget.value })}
                    />
                    {errors.of(field) !== undefined && (
                      <p class="field-error" id={`${id}-error`}>
                        {errors.of(field)}
                      </p>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <p>
          Tickets: {tickets} · Subtotal before fees and taxes:{' '}
          <span data-testid="subtotal">{money(total, currency)}</span>
        </p>
      </fieldset>

      <fieldset>
        <legend>Buyer</legend>
        <div class="row">
          {BUYER_FIELDS.map((name) => (
            <Field
              key={name}
              id={fieldId(`buyer.${name}`)}
              label={
                { first_name: 'First name', last_name: 'Last name', email: 'E-mail', phone: 'Phone' }[name] +
                (name === 'first_name' || name === 'email' ? ' (required)' : '')
              }
              error={errors.of(`buyer.${name}`)}
            >
              {(a) => (
                <TypedInput
                  {...a}
                  type={name === 'email' ? 'email' : name === 'phone' ? 'phone' : 'text'}
                  required={name === 'first_name' || name === 'email'}
                  autoComplete="off"
                  value={buyer[name]}
                  onValue={(value) => setBuyer({ ...buyer, [name]: value })}
                />
              )}
            </Field>
          ))}
        </div>
      </fieldset>

      <fieldset id={fieldId('tender')} tabIndex={-1}>
        <legend>Tender</legend>
        {TENDERS.map((t) => (
          <label class="check" key={t.value}>
            <input
              type="radio"
              name="tender"
              value={t.value}
              checked={tender === t.value}
              onChange={() => setTender(t.value)}
            />{' '}
            {t.label}
          </label>
        ))}
        {errors.of('tender') !== undefined && <p class="field-error">{errors.of('tender')}</p>}
      </fieldset>

      {questions.length > 0 && (
        <fieldset>
          <legend>Registration questions</legend>
          {perOrder.map((q) => (
            <QuestionInput
              key={q.id}
              question={q}
              id={fieldId(answerId(q))}
              label={q.label}
              value={answers[answerId(q)]}
              error={errors.of(answerId(q))}
              onChange={(value) => setAnswers({ ...answers, [answerId(q)]: value })}
            />
          ))}
          {attendees.map((n) =>
            perAttendee.map((q) => (
              <QuestionInput
                key={`${q.id}-${n}`}
                question={q}
                id={fieldId(answerId(q, n))}
                label={`Ticket ${n}: ${q.label}`}
                value={answers[answerId(q, n)]}
                error={errors.of(answerId(q, n))}
                onChange={(value) => setAnswers({ ...answers, [answerId(q, n)]: value })}
              />
            )),
          )}
          {perAttendee.length > 0 && tickets === 0 && (
            <p class="hint">Questions asked per attendee appear once tickets are chosen.</p>
          )}
        </fieldset>
      )}
      <ErrorNotice error={errors.general} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Selling…' : 'Sell tickets'}
        </button>
      </div>
    </form>
  );
}
