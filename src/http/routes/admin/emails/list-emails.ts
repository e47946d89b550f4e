import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listEmails } from '../../../../mail/log.ts';
import {
  errorResponses,
  IdParams,
  ListOf,
  PAGE_LIMIT_DEFAULT,
  PaginationQuery,
  success,
} from '../../../schemas/common.ts';
import { Email } from '../../../schemas/orders.ts';
import { presentEmail } from '../../../presenters/emails.ts';
import { presentList } from '../../../presenters/list.ts';

export const listEmailsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizers/:id/emails',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['admin'],
        operationId: 'adminListEmails',
        summary: 'The mail log of an organizer (receipts, e-tickets, invitations), newest first',
        description:
          'The receipts and e-ticket mails of the organizer’s orders and its team invitations (`order_id` null), newest first, with their delivery state. Password resets belong to a user, not an organizer, and are in no organizer’s log.',
        params: IdParams,
        querystring: Type.Object(PaginationQuery, { additionalProperties: false }),
        response: { 200: success(ListOf(Email)), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const page = await listEmails(request.db, request.params.id, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentEmail);
    },
  );
};
