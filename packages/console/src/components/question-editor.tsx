/**
 * An event's registration questions (docs/orders.md, "Registration answers"): the list for
 * everyone who may read the event (GET /dashboard/v1/events/{id}/questions), and with
 * `catalog` a form to add one of each type (POST /dashboard/v1/events/{id}/questions) and
 * one to change a question's label, "required online" and options
 * (PATCH /dashboard/v1/questions/{id}; docs/dashboard.md, "Box office and catalog operations"). Key, type
 * and per attendee / per order stay as created. An answer keeps the label it was given:
 * a new label is what sales ask from then on. Refusals are shown beside their field (a
 * key the event already has: beside the key).
 */
import { useEffect, useState } from 'preact/hooks';
import { MarqueeApiError, type EventDetail, type RegistrationQuestion } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import {
  createQuestion,
  updateQuestion,
  useRequestKey,
  type CreateQuestionBody,
  type QuestionOption,
  type QuestionType,
  type UpdateQuestionBody,
} from '../lib/catalog.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { useSession } from '../lib/session.ts';
import { useAsync } from '../lib/use-async.ts';
import { ActionsCol } from './table-headers.tsx';

const TYPES: readonly { type: QuestionType; label: string }[] = [
  { type: 'text', label: 'Text' },
  { type: 'number', label: 'Number' },
  { type: 'date', label: 'Date' },
  { type: 'email', label: 'E-mail address' },
  { type: 'phone', label: 'Phone number' },
  { type: 'select', label: 'One of a list (select)' },
  { type: 'multi_select', label: 'Several of a list (multi-select)' },
];

const typeLabel = (type: QuestionType) => TYPES.find((t) => t.type === type)?.label ?? type;
const hasOptions = (type: QuestionType) => type === 'select' || type === 'multi_select';

/** Where the API's `param` is shown in a form whose fields are named `<prefix>.<param>`. */
const QUESTION_PARAMS = /^(key|label|type|required|per_attendee|options(\.\d+\.(key|label))?)$/;

/**
 * A refusal in a question form: beside the field its `param` names; a key the event already
 * has (409 `resource_exists`) beside the key, whether or not the answer names it.
 */
function failQuestion(errors: ReturnType<typeof useFormErrors>, prefix: string, err: unknown): void {
  if (err instanceof MarqueeApiError && err.code === 'resource_exists' && err.param === undefined)
    errors.failField(`${prefix}.key`, err.detail);
  else errors.fail(err);
}

export function QuestionEditor({ event }: { event: EventDetail }) {
  const { client, can } = useSession();
  const questions = useAsync(
    async () => (await client.events.listQuestions(event.id, { limit: 100 })).data,
    [client, event.id],
  );
  const [editing, setEditing] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const list = questions.data ?? [];
  const current = list.find((q) => q.id === editing);
  const editable = can('catalog');
  // The change form closed: the keyboard goes back to the row's button that opened it.
  const closeChange = (key: string) => {
    setEditing(undefined);
    requestAnimationFrame(() =>
      document.querySelector<HTMLButtonElement>(`tr[data-question="${CSS.escape(key)}"] button`)?.focus(),
    );
  };

  return (
    <section aria-labelledby="questions-heading">
      <h2 id="questions-heading">Registration questions</h2>
      <p class="hint">
        What a sale of this event asks, in this order. An answer keeps the label its question had when it was given: a
        changed label is asked from then on, and answers already given keep theirs.
      </p>
      <ErrorNotice error={questions.error} />
      {questions.data === undefined && questions.error === undefined && <p class="loading">Loading the questions…</p>}
      {questions.data !== undefined && list.length === 0 && <p>No questions: a sale asks only for the buyer.</p>}
      {list.length > 0 && (
        <table aria-labelledby="questions-heading">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Label</th>
              <th scope="col">Type</th>
              <th scope="col">Options</th>
              <th scope="col">Required online</th>
              <th scope="col">Asked</th>
              {editable && <ActionsCol />}
            </tr>
          </thead>
          <tbody>
            {list.map((q) => (
              <tr key={q.id} data-question={q.key}>
                <td>
                  <code>{q.key}</code>
                </td>
                <td>{q.label}</td>
                <td>{typeLabel(q.type)}</td>
                <td>{q.options.length === 0 ? '—' : q.options.map((o) => `${o.label} (${o.key})`).join(', ')}</td>
                <td>{q.required ? 'Yes' : 'No'}</td>
                <td>{q.per_attendee ? 'Per attendee' : 'Per order'}</td>
                {editable && (
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Change question ${q.key}`}
                      aria-expanded={editing === q.id}
                      onClick={() => {
                        setStatus('');
                        setEditing(editing === q.id ? undefined : q.id);
                      }}
                    >
                      Change
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p role="status">{status}</p>
      {editable && current !== undefined && (
        <QuestionChangeForm
          key={current.id}
          question={current}
          onCancel={() => closeChange(current.key)}
          onSaved={(q) => {
            closeChange(q.key);
            setStatus(`The question “${q.key}” was saved.`);
            questions.reload();
          }}
        />
      )}
      {editable && (
        <NewQuestionForm
          eventId={event.id}
          onCreated={(q) => {
            setStatus(`The question “${q.key}” was added.`);
            questions.reload();
          }}
        />
      )}
    </section>
  );
}

interface OptionDraft {
  key: string;
  label: string;
}

const blankOption = (): OptionDraft => ({ key: '', label: '' });
const trimmedOptions = (options: OptionDraft[]): QuestionOption[] =>
  options.map((o) => ({ key: o.key.trim(), label: o.label.trim() }));

/** The options of a select question: a key and a label per row, rows added and removed. */
function OptionsEditor({
  prefix,
  options,
  onChange,
  errors,
}: {
  prefix: string;
  options: OptionDraft[];
  onChange: (options: OptionDraft[]) => void;
  errors: ReturnType<typeof useFormErrors>;
}) {
  const change = (i: number, patch: Partial<OptionDraft>) =>
    onChange(options.map((o, j) => (j === i ? { ...o, ...patch } : o)));
  const groupError = errors.of(`${prefix}.options`);
  return (
    <fieldset
      id={fieldId(`${prefix}.options`)}
      tabIndex={-1}
      class={groupError === undefined ? '' : 'invalid'}
      {...(groupError !== undefined ? { 'aria-describedby': `${fieldId(`${prefix}.options`)}-error` } : {})}
    >
      <legend>Options</legend>
      <p class="hint">The key is what an answer stores (lower-case, e.g. vegan); the label is what the buyer sees.</p>
      {options.map((o, i) => (
        <div class="row" key={i} role="group" aria-label={`Option ${i + 1}`}>
          <Field
            id={fieldId(`${prefix}.options.${i}.key`)}
            label={`Option ${i + 1} key`}
            error={errors.of(`${prefix}.options.${i}.key`)}
          >
            {(a) => <input {...a} value={o.key} onInput={(e) => change(i, { key: e.currentTarget.value })} />}
          </Field>
          <Field
            id={fieldId(`${prefix}.options.${i}.label`)}
            label={`Option ${i + 1} label`}
            error={errors.of(`${prefix}.options.${i}.label`)}
          >
            {(a) => <input {...a} value={o.label} onInput={(e) => change(i, { label: e.currentTarget.value })} />}
          </Field>
          {options.length > 1 && (
            <button type="button" class="secondary" onClick={() => onChange(options.filter((_, j) => j !== i))}>
              Remove option {i + 1}
            </button>
          )}
        </div>
      ))}
      {groupError !== undefined && (
        <p class="field-error" id={`${fieldId(`${prefix}.options`)}-error`}>
          {groupError}
        </p>
      )}
      <button type="button" class="secondary" onClick={() => onChange([...options, blankOption()])}>
        Add an option
      </button>
    </fieldset>
  );
}

const NEW = 'question';

function NewQuestionForm({ eventId, onCreated }: { eventId: string; onCreated: (q: RegistrationQuestion) => void }) {
  const [key, setKey] = useState('');
  const [label, setLabel] = useState('');
  const [type, setType] = useState<QuestionType>('text');
  const [options, setOptions] = useState<OptionDraft[]>([blankOption(), blankOption()]);
  const [required, setRequired] = useState(false);
  const [perAttendee, setPerAttendee] = useState(false);
  const [busy, setBusy] = useState(false);
  const requestKey = useRequestKey();
  const errors = useFormErrors((param) => (QUESTION_PARAMS.test(param) ? `${NEW}.${param}` : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    const body: CreateQuestionBody = {
      key: key.trim(),
      label: label.trim(),
      type,
      ...(hasOptions(type) ? { options: trimmedOptions(options) } : {}),
      required,
      per_attendee: perAttendee,
    };
    setBusy(true);
    try {
      const created = await createQuestion(eventId, body, requestKey.keyFor(body));
      requestKey.reset();
      setKey('');
      setLabel('');
      setType('text');
      setOptions([blankOption(), blankOption()]);
      setRequired(false);
      setPerAttendee(false);
      onCreated(created);
    } catch (err) {
      failQuestion(errors, NEW, err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="new-question-heading">
      <h3 id="new-question-heading">Add a question</h3>
      <Field
        id={fieldId(`${NEW}.key`)}
        label="Key"
        hint="Lower-case letters and digits, joined by - or _ (e.g. diet): what an answer names. It cannot change later."
        error={errors.of(`${NEW}.key`)}
      >
        {(a) => <input {...a} autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} />}
      </Field>
      <Field
        id={fieldId(`${NEW}.label`)}
        label="Label"
        hint="What the buyer is asked"
        error={errors.of(`${NEW}.label`)}
      >
        {(a) => <input {...a} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />}
      </Field>
      <Field id={fieldId(`${NEW}.type`)} label="Answer type" error={errors.of(`${NEW}.type`)}>
        {(a) => (
          <select {...a} value={type} onChange={(e) => setType(e.currentTarget.value as QuestionType)}>
            {TYPES.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {hasOptions(type) && <OptionsEditor prefix={NEW} options={options} onChange={setOptions} errors={errors} />}
      <label class="check">
        <input type="checkbox" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} /> Required
        online (a sale cannot be made without an answer)
      </label>
      <fieldset>
        <legend>Asked</legend>
        <label class="check">
          <input type="radio" name="new-question-asked" checked={!perAttendee} onChange={() => setPerAttendee(false)} />{' '}
          Once per order
        </label>
        <label class="check">
          <input type="radio" name="new-question-asked" checked={perAttendee} onChange={() => setPerAttendee(true)} />{' '}
          Per attendee (once for every ticket)
        </label>
        <p class="hint">This cannot change later.</p>
      </fieldset>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Add question" busy={busy} busyLabel="Adding…" />
    </form>
  );
}

const CHANGE = 'question-change';

function QuestionChangeForm({
  question,
  onSaved,
  onCancel,
}: {
  question: RegistrationQuestion;
  onSaved: (q: RegistrationQuestion) => void;
  onCancel: () => void;
}) {
  const [label, setLabel] = useState(question.label);
  const [required, setRequired] = useState(question.required);
  const [options, setOptions] = useState<OptionDraft[]>(question.options.map((o) => ({ ...o })));
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const requestKey = useRequestKey();
  const errors = useFormErrors((param) => (QUESTION_PARAMS.test(param) ? `${CHANGE}.${param}` : undefined));
  // Opened from its row's button: the keyboard goes on in the form.
  useEffect(() => document.getElementById(fieldId(`${CHANGE}.label`))?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    setNote('');
    // Only what changed is sent.
    const change: UpdateQuestionBody = {};
    if (label.trim() !== question.label) change.label = label.trim();
    if (required !== question.required) change.required = required;
    const next = trimmedOptions(options);
    if (hasOptions(question.type) && JSON.stringify(next) !== JSON.stringify(question.options)) change.options = next;
    if (Object.keys(change).length === 0) {
      setNote('Nothing changed.');
      return;
    }
    setBusy(true);
    try {
      onSaved(await updateQuestion(question.id, change, requestKey.keyFor({ id: question.id, change })));
    } catch (err) {
      failQuestion(errors, CHANGE, err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-labelledby="change-question-heading"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <h3 id="change-question-heading">
        Change the question <code>{question.key}</code>
      </h3>
      <p class="hint">
        {typeLabel(question.type)}, asked {question.per_attendee ? 'per attendee' : 'once per order'}; the key, the type
        and how often it is asked stay as they are.
      </p>
      <Field
        id={fieldId(`${CHANGE}.label`)}
        label="Label"
        hint="Answers already given keep the label they were given; sales from now on ask this one."
        error={errors.of(`${CHANGE}.label`)}
      >
        {(a) => <input {...a} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />}
      </Field>
      {hasOptions(question.type) && (
        <OptionsEditor prefix={CHANGE} options={options} onChange={setOptions} errors={errors} />
      )}
      <label class="check">
        <input type="checkbox" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} /> Required
        online (a sale cannot be made without an answer)
      </label>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Save question" busy={busy} busyLabel="Saving…">
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <span role="status">{note}</span>
      </SubmitActions>
    </form>
  );
}
