import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createUserDirectly } from '../../../../domain/people/links.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { CreatedUser, CreateUserBody } from '../../../schemas/dashboard.ts';

export const createUserRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/users',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateUser',
        summary: 'Create a user with a membership',
        description:
          'For operators and scripts: a user of the organizer with the role and a password set directly (people get invitations instead, docs/dashboard.md). The password policy applies; an address that has an account answers 409.',
        body: CreateUserBody,
        response: { 201: success(CreatedUser), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        object: 'user' as const,
        ...(await createUserDirectly(request.db, request.body, app.deps.clock.now())),
      }),
  );
};
