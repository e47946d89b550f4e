import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { patchQuestion } from '../../../../domain/questions/questions.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
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
        description: 'A partial update; answers given later keep a snapshot of the new label.',
        params: IdParams,
        body: UpdateQuestion,
        response: { 200: success(RegistrationQuestion), ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request) =>
      presentQuestion(await patchQuestion(request.db, request.params.id, request.body, app.deps.clock.now())),
  );
};
