/**
 * Changing an event: the partial update (PATCH) and publishing a draft (admin). Each
 * emits its domain event in the change's transaction and tells the event-detail readers
 * once it has committed (./changes.ts).
 */
import {
  findEventAnyForUpdate,
  findEventForUpdate,
  markEventPublished,
  publishDraftPerformances,
  updateEventRow,
  type EventDetailRow,
} from '../../db/repositories/catalog.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Translation } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { emitDomainEvent } from '../../outbox/domain-events.ts';
import { eventDetailChanged } from './changes.ts';
import { cleanTitle, duplicateTitle, getEventDetail, resolveTranslation } from './events.ts';
import { sanitizeDescription } from './sanitize.ts';

interface UpdateEventInput {
  title?: string;
  description?: string | null;
  contact_email?: string | null;
  is_archived?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function updateEvent(
  db: Executor,
  organizerId: string,
  id: string,
  input: UpdateEventInput,
  now: Date,
): Promise<EventDetailRow> {
  if (Object.keys(input).length === 0) {
    throw invalid('empty_update', 'Send at least one of `title`, `description`, `contact_email`, `is_archived`.');
  }
  const title = input.title === undefined ? undefined : cleanTitle(input.title);
  let contactEmail = input.contact_email;
  if (typeof contactEmail === 'string') {
    contactEmail = contactEmail.trim();
    if (contactEmail.length < 10)
      throw invalid('parameter_invalid', '`contact_email` must be at least 10 characters.', 'contact_email');
    if (!EMAIL.test(contactEmail))
      throw invalid(
        'parameter_invalid',
        `\`contact_email\` must be an e-mail address such as box@example.com, got "${contactEmail}".`,
        'contact_email',
      );
  }

  return withTransaction(db, async (trx) => {
    const event = await findEventForUpdate(trx, organizerId, id);
    if (!event) throw notFound('Event');

    let translations: Translation[] | undefined;
    if (title !== undefined || input.description !== undefined) {
      translations = (event.translations ?? []).map((t) => ({ ...t }));
      let own = translations.find((t) => t.locale === event.default_locale);
      if (!own) {
        own = { locale: event.default_locale, title: event.title, description: null };
        translations.push(own);
      }
      if (title !== undefined) own.title = title;
      if (input.description !== undefined) own.description = sanitizeDescription(input.description);
    }
    const resolvedTitle = translations ? (resolveTranslation(translations)?.title ?? event.title) : undefined;

    try {
      await updateEventRow(trx, organizerId, id, {
        ...(resolvedTitle !== undefined && resolvedTitle !== null ? { title: resolvedTitle } : {}),
        ...(translations ? { translations } : {}),
        ...(contactEmail !== undefined ? { contact_email: contactEmail } : {}),
        ...(input.is_archived !== undefined ? { is_archived: input.is_archived } : {}),
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error, 'events_title_uq')) throw duplicateTitle(title ?? resolvedTitle ?? '');
      throw error;
    }
    await emitDomainEvent(trx, { organizerId, type: 'event.updated', data: { event_id: id }, at: now });
    eventDetailChanged(trx, id);
    return getEventDetail(trx, organizerId, id);
  });
}

/** A draft goes live: it and its draft performances are published, one event.published each. */
export async function publishEvent(
  db: Executor,
  id: string,
  now: Date,
  /** The dashboard's organizer: another organizer's event is not found. The admin API passes none. */
  organizerId?: string,
): Promise<EventDetailRow> {
  return withTransaction(db, async (trx) => {
    const event = await findEventAnyForUpdate(trx, id);
    if (!event || (organizerId !== undefined && event.organizer_id !== organizerId)) throw notFound('Event');
    if (event.status === 'published') throw conflict('invalid_state', 'Event is already published.');
    const published = await markEventPublished(trx, id, now);
    const performances = await publishDraftPerformances(trx, id, now);
    performances.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime() || (a.id < b.id ? -1 : 1));
    for (const performance of performances) {
      await emitDomainEvent(trx, {
        organizerId: event.organizer_id,
        type: 'event.published',
        data: { event_id: id, performance_id: performance.id },
        at: now,
      });
    }
    eventDetailChanged(trx, id);
    return getEventDetail(trx, published.organizer_id, published.id);
  });
}
