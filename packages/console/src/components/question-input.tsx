/**
 * One registration question as a form control, by its type (docs/orders.md,
 * "Registration answers"): text, number, date, e-mail and phone inputs, a select, or a
 * group of checkboxes for a multi-select. A required question is required here too, so
 * the browser refuses the form before it is sent.
 */
import type { RegistrationQuestion } from '@marquee/sdk';
import { Field } from './field.tsx';

export type AnswerValue = string | string[];

interface QuestionInputProps {
  question: RegistrationQuestion;
  id: string;
  label: string;
  value: AnswerValue | undefined;
  error: string | undefined;
  onChange: (value: AnswerValue) => void;
}

export function QuestionInput({ question, id, label, value, error, onChange }: QuestionInputProps) {
  const text = typeof value === 'string' ? value : '';
  if (question.type === 'multi_select') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class={error === undefined ? '' : 'invalid'} id={id} tabIndex={-1}>
        <legend>
          {label}
          {question.required ? ' (required)' : ''}
        </legend>
        {question.options.map((option) => (
          <label class="check" key={option.key}>
            <input
              type="checkbox"
              checked={chosen.includes(option.key)}
              onChange={(e) =>
                onChange(e.currentTarget.checked ? [...chosen, option.key] : chosen.filter((key) => key !== option.key))
              }
            />{' '}
            {option.label}
          </label>
        ))}
        {error !== undefined && <p class="field-error">{error}</p>}
      </fieldset>
    );
  }
  return (
    <Field id={id} label={question.required ? `${label} (required)` : label} error={error}>
      {(a) =>
        question.type === 'select' ? (
          <select {...a} required={question.required} value={text} onChange={(e) => onChange(e.currentTarget.value)}>
            <option value="">Choose…</option>
            {question.options.map((option) => (
              <option key={option.key} value={option.key}>
                {option.label}
              </option>
            ))}
          </select>
        ) : (
          <TypedInput {...a} type={question.type} required={question.required} value={text} onValue={onChange} />
        )
      }
    </Field>
  );
}

/** What a text-like input takes here: its id and ARIA links from <Field>, its value and its change. */
interface TextInputProps {
  type: string;
  id: string;
  value: string;
  onValue: (value: string) => void;
  required?: boolean;
  autoComplete?: string;
  'aria-invalid'?: 'true';
  'aria-describedby'?: string;
}

/** The input of a text-like question type: the browser's own control and check for each. */
export function TypedInput({ type, onValue, ...rest }: TextInputProps) {
  const common = { ...rest, onInput: (e: { currentTarget: HTMLInputElement }) => onValue(e.currentTarget.value) };
  switch (type) {
    case 'number':
      return <input {...common} type="number" step="any" />;
    case 'date':
      return <input {...common} type="date" />;
    case 'email':
      return <input {...common} type="email" />;
    case 'phone':
      return <input {...common} type="tel" />;
    default:
      return <input {...common} type="text" />;
  }
}
