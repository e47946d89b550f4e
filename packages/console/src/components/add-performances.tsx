/**
 * Adding performances to an existing event (POST /dashboard/v1/events/{id}/performances,
 * docs/dashboard.md, "Box office and catalog operations"): start, optional end, capacity and title of each,
 * the times typed in the event's time zone and sent as instants. Each new performance is
 * priced with every ticket type's price; on a published event it goes on sale at once.
 * The answer is the event again, which the screen shows; a refusal's detail is shown
 * beside the field its `param` names.
 */
import { useState } from 'preact/hooks';
import type { EventDetail } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import { addPerformances, useRequestKey, type PerformanceItem } from '../lib/catalog.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { zonedInputToIso } from '../lib/format.ts';

interface PerformanceDraft {
  starts: string;
  ends: string;
  capacity: string;
  title: string;
}

const blank = (): PerformanceDraft => ({ starts: '', ends: '', capacity: '', title: '' });

/** The fields of this form, by the API's paths; any other `param` is shown above the button. */
const FIELD_PATHS = /^performances(\.\d+\.(starts_at|ends_at|capacity|title))?$/;

export function AddPerformances({ event, onAdded }: { event: EventDetail; onAdded: (event: EventDetail) => void }) {
  const [drafts, setDrafts] = useState<PerformanceDraft[]>([blank()]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const requestKey = useRequestKey();
  const errors = useFormErrors((param) => (FIELD_PATHS.test(param) ? param : undefined));

  const change = (i: number, patch: Partial<PerformanceDraft>) =>
    setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  // A time that is not one (an empty field) is sent as typed: the API names the field.
  const instant = (local: string) => zonedInputToIso(local, event.timezone) ?? local;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    setStatus('');
    const performances: PerformanceItem[] = drafts.map((d) => ({
      starts_at: instant(d.starts),
      ...(d.ends.trim() !== '' ? { ends_at: instant(d.ends) } : {}),
      capacity: d.capacity.trim() === '' ? Number.NaN : Number(d.capacity),
      ...(d.title.trim() !== '' ? { title: d.title.trim() } : {}),
    }));
    setBusy(true);
    try {
      const updated = await addPerformances(event.id, performances, requestKey.keyFor(performances));
      requestKey.reset();
      setDrafts([blank()]);
      setStatus(
        performances.length === 1 ? 'The performance was added.' : `${performances.length} performances were added.`,
      );
      onAdded(updated);
    } catch (err) {
      errors.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="add-performances-heading">
      <h2 id="add-performances-heading">Add performances</h2>
      <p class="hint">
        Times are in {event.timezone}. Each new performance is priced with every ticket type's price; on a published
        event it goes on sale at once.
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        {errors.of('performances') !== undefined && <p class="field-error">{errors.of('performances')}</p>}
        {drafts.map((d, i) => (
          <div class="row" key={i} role="group" aria-label={`New performance ${i + 1}`}>
            <Field
              id={fieldId(`performances.${i}.starts_at`)}
              label={`New performance ${i + 1} starts`}
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
                  min={1}
                  value={d.capacity}
                  onInput={(e) => change(i, { capacity: e.currentTarget.value })}
                />
              )}
            </Field>
            <Field
              id={fieldId(`performances.${i}.title`)}
              label="Performance title (optional)"
              error={errors.of(`performances.${i}.title`)}
            >
              {(a) => <input {...a} value={d.title} onInput={(e) => change(i, { title: e.currentTarget.value })} />}
            </Field>
            {drafts.length > 1 && (
              <button type="button" class="secondary" onClick={() => setDrafts(drafts.filter((_, j) => j !== i))}>
                Remove new performance {i + 1}
              </button>
            )}
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => setDrafts([...drafts, blank()])}>
          One more performance
        </button>
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Add performances" busy={busy} busyLabel="Adding…">
          <span role="status">{status}</span>
        </SubmitActions>
      </form>
    </section>
  );
}
