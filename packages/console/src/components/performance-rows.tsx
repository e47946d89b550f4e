/**
 * The performance rows of a catalog form (the new event's form and "Add performances",
 * docs/console.md): start, optional end, capacity and optional title, the times typed in
 * the event's time zone; a row added or removed; each refusal's detail beside the field
 * its `param` names.
 */
import { Field } from './field.tsx';
import { fieldId, type useFormErrors } from '../lib/form-errors.ts';

export interface PerformanceDraft {
  starts: string;
  ends: string;
  capacity: string;
  title: string;
}

export const blankPerformance = (): PerformanceDraft => ({ starts: '', ends: '', capacity: '', title: '' });

/** The API paths of the rows' fields. */
export const PERFORMANCE_PATHS = 'performances(\\.\\d+\\.(starts_at|ends_at|capacity|title))?';

export function PerformanceRows({
  drafts,
  onChange,
  errors,
  noun,
  titleLabel,
  addLabel,
  capacityMin,
}: {
  drafts: PerformanceDraft[];
  onChange: (drafts: PerformanceDraft[]) => void;
  errors: Pick<ReturnType<typeof useFormErrors>, 'of'>;
  /** "Performance" or "New performance": names each row ("Performance 2") and its buttons. */
  noun: string;
  titleLabel: string;
  /** The text of the button that adds a row. */
  addLabel: string;
  /** The smallest capacity the number field offers, if any. */
  capacityMin?: number;
}) {
  const change = (i: number, patch: Partial<PerformanceDraft>) =>
    onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <>
      {errors.of('performances') !== undefined && <p class="field-error">{errors.of('performances')}</p>}
      {drafts.map((d, i) => (
        <div class="row" key={i} role="group" aria-label={`${noun} ${i + 1}`}>
          <Field
            id={fieldId(`performances.${i}.starts_at`)}
            label={`${noun} ${i + 1} starts`}
            error={errors.of(`performances.${i}.starts_at`)}
          >
            {(a) => (
              <input
                {...a}
                type="datetime-local"
                value={d.starts}
                onInput={(e) => change(i, { starts: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field
            id={fieldId(`performances.${i}.ends_at`)}
            label="Ends (optional)"
            error={errors.of(`performances.${i}.ends_at`)}
          >
            {(a) => (
              <input
                {...a}
                type="datetime-local"
                value={d.ends}
                onInput={(e) => change(i, { ends: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field
            id={fieldId(`performances.${i}.capacity`)}
            label="Capacity"
            error={errors.of(`performances.${i}.capacity`)}
          >
            {(a) => (
              <input
                {...a}
                type="number"
                inputMode="numeric"
                min={capacityMin}
                value={d.capacity}
                onInput={(e) => change(i, { capacity: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field
            id={fieldId(`performances.${i}.title`)}
            label={titleLabel}
            error={errors.of(`performances.${i}.title`)}
          >
            {(a) => <input {...a} value={d.title} onInput={(e) => change(i, { title: e.currentTarget.value })} />}
          </Field>
          {drafts.length > 1 && (
            <button type="button" class="secondary" onClick={() => onChange(drafts.filter((_, j) => j !== i))}>
              Remove {noun.toLowerCase()} {i + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => onChange([...drafts, blankPerformance()])}>
        {addLabel}
      </button>
    </>
  );
}
