import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listEventQuestions } from '../../../../domain/questions/questions.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { ListQuestionsQuery, RegistrationQuestionList } from '../../../schemas/questions.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentQuestion } from '../../../presenters/questions.ts';

export const listEventQuestionsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:id/questions',
    {
      config: { resource: 'Event', reads: 'replica' },
      schema: {
        tags: ['events'],
        operationId: 'listEventQuestions',
        summary: "List an event's registration questions",
        description:
          'What a sale of the event asks, in the order the questions were added: each question’s key (the `field_key` of an answer), type, options, whether it is required and whether it is asked per attendee (docs/orders.md, "Registration answers"). An unknown or another organizer’s event answers 404, never an empty list.',
        params: IdParams,
        querystring: ListQuestionsQuery,
        response: { 200: success(RegistrationQuestionList), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await listEventQuestions(request.db, tenantOf(request).organizerId, request.params.id, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentQuestion);
    },
  );
};
