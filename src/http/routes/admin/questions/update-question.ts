import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { patchQuestion } from '../../../../domain/questions/questions.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { RegistrationQuestion, UpdateQuestion } from '../../../schemas/questions.ts';
import { presentQuestion } from '../../../presenters/questions.ts';

export const updateQuestionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/questions/:id',
    {
      config: { resource: 'Question' },
      schema: {
        tags: ['admin'],
        operationId: 'adminUpdateQuestion',
        summary: 'Update a registration question (later answers snapshot the new label)',
        params: IdParams,
        body: UpdateQuestion,
        response: { 200: RegistrationQuestion, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      presentQuestion(await patchQuestion(request.db, request.params.id, request.body, app.deps.clock.now())),
  );
};
