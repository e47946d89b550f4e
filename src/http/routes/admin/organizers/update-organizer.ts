import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forgetOrganizerApiKeys } from '../../../../domain/auth/api-keys.ts';
import { updateOrganizerSettings } from '../../../../domain/organizers/organizers.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { Organizer, UpdateOrganizer } from '../../../schemas/organizers.ts';
import { presentOrganizer } from '../../../presenters/organizers.ts';

export const updateOrganizerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/organizers/:id',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['admin'],
        operationId: 'adminUpdateOrganizer',
        summary: 'Update organizer settings (fee, tax, defaults)',
        description:
          'A partial update of the organizer’s settings: name, currency, timezone, fees, tax, contact and sender e-mail (null clears them), default_language (a language Marquee ships; null: English; another answers 400 with param `default_language`) and ticket_paper_size (`a4` or `letter`). The currency is fixed once the organizer has an order: changing it then answers 409 `invalid_state`.',
        params: IdParams,
        body: UpdateOrganizer,
        response: { 200: success(Organizer), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const row = await updateOrganizerSettings(request.db, request.params.id, request.body);
      // Cached key lookups carry the organizer's currency and timezone: drop them (committed).
      forgetOrganizerApiKeys(app.deps.caches.apiKeys, row.id);
      return presentOrganizer(row);
    },
  );
};
