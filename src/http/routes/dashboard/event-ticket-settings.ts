/**
 * An event's ticket settings (docs/dashboard.md, "Event ticket settings"): the language
 * of its buyers' e-mails, PDF tickets and wallet passes. Dashboard only (the /v1 Event
 * stays as it is), scoped to the session's organizer: another organizer's event is not
 * found. The PATCH is recorded in the audit log against the event.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getEventTicketSettings, updateEventTicketSettings } from '../../../domain/catalog/event-ticket-settings.ts';
import { LANGUAGES } from '../../../i18n/index.ts';
import { errorResponses, IdParams, success } from '../../schemas/common.ts';
import { EventTicketSettings, UpdateEventTicketSettings } from '../../schemas/event-ticket-settings.ts';
import { sessionOf } from './session.ts';

export const eventTicketSettingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:id/ticket_settings',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'getEventTicketSettings',
        summary: 'The language of an event’s e-mails, PDF tickets and passes',
        description:
          'The event’s own `language` (null: the organizer’s `default_language` applies) and `effective_language`, what its buyers receive: the event’s language, else the organizer’s default, else `en`.',
        params: IdParams,
        response: { 200: success(EventTicketSettings), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getEventTicketSettings(request.db, sessionOf(request).organizerId, request.params.id),
  );

  app.patch(
    '/events/:id/ticket_settings',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'updateEventTicketSettings',
        summary: 'Set the language of an event’s e-mails, PDF tickets and passes',
        description: `Sets \`language\`, a language Marquee ships (${LANGUAGES.join(', ')}); null hands the event back to the organizer’s \`default_language\`. Another language answers 400 \`parameter_invalid\`, param \`language\`, naming those it ships. Mails already sent keep their language. The /v1 Event does not change, and no webhook is sent.`,
        params: IdParams,
        body: UpdateEventTicketSettings,
        response: { 200: success(EventTicketSettings), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      updateEventTicketSettings(request.db, sessionOf(request).organizerId, request.params.id, request.body),
  );
};
