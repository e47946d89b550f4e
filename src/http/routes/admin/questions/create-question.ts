import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createQuestion } from '../../../../domain/questions/questions.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { CreateQuestion, RegistrationQuestion } from '../../../schemas/questions.ts';
import { presentQuestion } from '../../../presenters/questions.ts';

export const createQuestionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/questions',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateQuestion',
        summary: 'Add a registration question to an event',
        description:
          'A question buyers answer at the box office, once per order or per attendee. A key already used on the event answers 409.',
        params: IdParams,
        body: CreateQuestion,
        response: { 201: success(RegistrationQuestion), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const row = await createQuestion(request.db, request.params.id, request.body, app.deps.clock.now());
      return reply.code(201).send(presentQuestion(row));
    },
  );
};
