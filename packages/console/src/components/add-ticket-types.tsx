/**
 * Adding ticket types to an existing event (POST /dashboard/v1/events/{id}/ticket_types,
 * docs/dashboard.md, "Box office and catalog operations"): name, optional description, the price typed in
 * the organizer's currency and sent in minor units, and an optional cap per performance.
 * Each new type is priced on every performance. The answer is the event again, which the
 * screen shows; a refusal's detail is shown beside the field its `param` names.
 */
import { useState } from 'preact/hooks';
import type { EventDetail } from '@marquee/sdk';
import { ErrorNotice } from './error-notice.tsx';
import { SubmitActions } from './form-actions.tsx';
import {
  blankTicketType,
  TICKET_TYPE_PATHS,
  TicketTypeRows,
  ticketTypeItems,
  type TicketTypeDraft,
} from './ticket-type-rows.tsx';
import { addTicketTypes, useRequestKey } from '../lib/catalog.ts';
import { useFormErrors } from '../lib/form-errors.ts';

const FIELD_PATHS = new RegExp(`^${TICKET_TYPE_PATHS}$`);

export function AddTicketTypes({
  event,
  currency,
  onAdded,
}: {
  event: EventDetail;
  /** The organizer's currency: the catalog's prices are in it (docs/console.md, "Money and dates"). */
  currency: string;
  onAdded: (event: EventDetail) => void;
}) {
  const [drafts, setDrafts] = useState<TicketTypeDraft[]>([blankTicketType()]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const requestKey = useRequestKey();
  const errors = useFormErrors((param) => (FIELD_PATHS.test(param) ? param : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    errors.clear();
    setStatus('');
    const ticketTypes = ticketTypeItems(drafts, currency, errors);
    if (ticketTypes === undefined) return;
    setBusy(true);
    try {
      const updated = await addTicketTypes(event.id, ticketTypes, requestKey.keyFor(ticketTypes));
      requestKey.reset();
      setDrafts([blankTicketType()]);
      setStatus(
        ticketTypes.length === 1 ? 'The ticket type was added.' : `${ticketTypes.length} ticket types were added.`,
      );
      onAdded(updated);
    } catch (err) {
      errors.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="add-ticket-types-heading">
      <h2 id="add-ticket-types-heading">Add ticket types</h2>
      <p class="hint">Each new ticket type is priced on every performance, in {currency}.</p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <TicketTypeRows
          drafts={drafts}
          onChange={setDrafts}
          errors={errors}
          currency={currency}
          noun="New ticket type"
          descriptionLabel="Ticket type description (optional)"
          addLabel="One more ticket type"
          capMin={1}
        />
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Add ticket types" busy={busy} busyLabel="Adding…">
          <span role="status">{status}</span>
        </SubmitActions>
      </form>
    </section>
  );
}
