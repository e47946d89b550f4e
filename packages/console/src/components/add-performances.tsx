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
import { SubmitActions } from './form-actions.tsx';
import { blankPerformance, PERFORMANCE_PATHS, PerformanceRows, type PerformanceDraft } from './performance-rows.tsx';
import { addPerformances, useRequestKey, type PerformanceItem } from '../lib/catalog.ts';
import { useFormErrors } from '../lib/form-errors.ts';
import { zonedInputToIso } from '../lib/format.ts';

/** The fields of this form, by the API's paths; any other `param` is shown above the button. */
const FIELD_PATHS = new RegExp(`^${PERFORMANCE_PATHS}$`);

export function AddPerformances({ event, onAdded }: { event: EventDetail; onAdded: (event: EventDetail) => void }) {
  const [drafts, setDrafts] = useState<PerformanceDraft[]>([blankPerformance()]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const requestKey = useRequestKey();
  const errors = useFormErrors((param) => (FIELD_PATHS.test(param) ? param : undefined));

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
      setDrafts([blankPerformance()]);
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
        <PerformanceRows
          drafts={drafts}
          onChange={setDrafts}
          errors={errors}
          noun="New performance"
          titleLabel="Performance title (optional)"
          addLabel="One more performance"
          capacityMin={1}
        />
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Add performances" busy={busy} busyLabel="Adding…">
          <span role="status">{status}</span>
        </SubmitActions>
      </form>
    </section>
  );
}
