/**
 * The actions in an event's header (docs/console.md, "Event"), for a role with `catalog`:
 * publish a draft (POST /dashboard/v1/events/{id}/publish: its performances go on sale,
 * one `event.published` each) and archive or restore (PATCH /dashboard/v1/events/{id} with
 * `is_archived`). Each says what it will do and asks once (./confirm-action.tsx); what
 * happened, or why it was refused, is said in words and takes the keyboard's focus.
 */
import { useState } from 'preact/hooks';
import { useOutcomeFocus } from '../lib/outcome-focus.ts';
import type { EventDetail, Performance } from '@marquee/sdk';
import { answer, dashboard } from '../lib/dashboard.ts';
import { useSession } from '../lib/session.ts';
import { ConfirmAction } from './confirm-action.tsx';
import { ErrorNotice } from './error-notice.tsx';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function EventActions({
  event,
  performances,
  onChanged,
}: {
  event: EventDetail;
  performances: Performance[];
  /** The event as the API answered it; the screen reads its performances again. */
  onChanged: (event: EventDetail) => void;
}) {
  const { can } = useSession();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ n: number; done?: string; error?: unknown }>({ n: 0 });
  const outcome = useOutcomeFocus(result, result.n > 0);
  if (!can('catalog')) return null;

  const drafts = performances.filter((p) => p.status === 'draft').length;
  const isDraft = performances.length > 0 && drafts === performances.length;
  const run = async (work: () => Promise<{ event: EventDetail; done: string }>) => {
    if (busy) return;
    setBusy(true);
    setResult((r) => ({ n: r.n }));
    try {
      const { event: changed, done } = await work();
      onChanged(changed);
      setResult((r) => ({ n: r.n + 1, done }));
    } catch (error) {
      setResult((r) => ({ n: r.n + 1, error }));
    } finally {
      setBusy(false);
    }
  };
  const publish = () =>
    run(async () => ({
      event: await answer(dashboard.POST('/dashboard/v1/events/{id}/publish', { params: { path: { id: event.id } } })),
      done: `Published: ${plural(drafts, 'performance')} on sale.`,
    }));
  const archive = (isArchived: boolean) =>
    run(async () => ({
      event: await answer(
        dashboard.PATCH('/dashboard/v1/events/{id}', {
          params: { path: { id: event.id } },
          body: { is_archived: isArchived },
        }),
      ),
      done: isArchived ? 'Archived.' : 'Restored from the archive.',
    }));

  return (
    <div class="event-actions">
      <div class="actions">
        {isDraft && (
          <ConfirmAction
            label="Publish event"
            confirmLabel={`Yes, publish ${event.title}`}
            consequence={`Publish: ${plural(drafts, 'performance')} ${drafts === 1 ? 'goes' : 'go'} on sale now, and each sends one event.published webhook. A published event cannot go back to draft.`}
            busy={busy}
            onConfirm={publish}
          />
        )}
        <ConfirmAction
          label={event.is_archived ? 'Restore from archive' : 'Archive event'}
          confirmLabel={`Yes, ${event.is_archived ? 'restore' : 'archive'} ${event.title}`}
          consequence={
            event.is_archived
              ? "Restore: the event is no longer marked archived, and its performances' Sell links show again."
              : 'Archive: the event is marked archived and the console offers no Sell link for it. It stays listed and readable, its tickets stay valid, and it can be restored.'
          }
          busy={busy}
          onConfirm={() => archive(!event.is_archived)}
        />
      </div>
      <div ref={outcome} tabIndex={-1} class="outcome">
        {result.done !== undefined && (
          <p class="notice ok" role="status">
            {result.done}
          </p>
        )}
        <ErrorNotice error={result.error} />
      </div>
    </div>
  );
}
