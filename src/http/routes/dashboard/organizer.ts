/**
 * Organizer settings (docs/dashboard.md, "Organizer settings"): the session's organizer,
 * read and changed by an owner with the admin API's domain function
 * (updateOrganizerSettings), so both surfaces keep the same rules: validation, and the
 * currency fixed once an order exists. The settings are the admin API's Organizer object.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forgetOrganizerApiKeys } from '../../../domain/auth/api-keys.ts';
import { getOrganizer, updateOrganizerSettings } from '../../../domain/organizers/organizers.ts';
import { errorResponses, success } from '../../schemas/common.ts';
import { Organizer, UpdateOrganizer } from '../../schemas/organizers.ts';
import { presentOrganizer } from '../../presenters/organizers.ts';
import { sessionOf } from './session.ts';

export const organizerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizer',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['organizer'],
        operationId: 'getOrganizerSettings',
        summary: 'The organizer’s settings',
        description:
          'The session’s organizer: name, default time zone, currency (with `currency_locked`, true once it has an order), box-office fee, tax, contact and sender e-mail, the default language of its buyers’ documents and the paper size of its PDF tickets.',
        response: { 200: success(Organizer), ...errorResponses(401, 403) },
      },
    },
    async (request) => presentOrganizer(await getOrganizer(request.db, sessionOf(request).organizerId)),
  );

  app.patch(
    '/organizer',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['organizer'],
        operationId: 'updateOrganizerSettings',
        summary: 'Change the organizer’s settings',
        description:
          'A partial update: name, timezone (IANA), currency (ISO 4217), box_office_fee_minor, tax_rate_bps, contact_email and sender_email (null clears them), default_language (a language Marquee ships; null: English) and ticket_paper_size (`a4` or `letter`). A language Marquee does not ship answers 400 `parameter_invalid` with param `default_language`. Fees and tax apply to sales made from now on. The currency is fixed once the organizer has an order: changing it then answers 409 `invalid_state` with param `currency`.',
        body: UpdateOrganizer,
        response: { 200: success(Organizer), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => {
      const row = await updateOrganizerSettings(request.db, sessionOf(request).organizerId, request.body);
      // Cached key lookups carry the organizer's currency and timezone: drop them (committed).
      forgetOrganizerApiKeys(app.deps.caches.apiKeys, row.id);
      return presentOrganizer(row);
    },
  );
};
