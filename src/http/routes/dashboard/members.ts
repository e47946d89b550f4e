/** The team of the session's organizer (docs/dashboard.md, "Team"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { changeMemberRole, inviteMember, listMembers, removeMember } from '../../../domain/people/members.ts';
import {
  errorResponses,
  IdParams,
  ListOf,
  PAGE_LIMIT_DEFAULT,
  PaginationQuery,
  success,
} from '../../schemas/common.ts';
import { InviteMemberBody, Member, NoContent, UpdateMemberBody } from '../../schemas/dashboard.ts';
import { presentList } from '../../presenters/list.ts';
import { presentMember } from '../../presenters/people.ts';
import { publicUrlOf } from './public-url.ts';
import { sessionOf } from './session.ts';

const listMembersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/members',
    {
      schema: {
        tags: ['team'],
        operationId: 'listMembers',
        summary: 'Members and pending invitations',
        description: 'Every member and invitation of the organizer, oldest first.',
        querystring: Type.Object(PaginationQuery, { additionalProperties: false }),
        response: { 200: success(ListOf(Member)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listMembers(request.db, sessionOf(request).organizerId, {
        limit: request.query.limit ?? PAGE_LIMIT_DEFAULT,
        starting_after: request.query.starting_after,
      });
      return presentList(page, presentMember);
    },
  );
};

const inviteMemberRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/members',
    {
      schema: {
        tags: ['team'],
        operationId: 'inviteMember',
        summary: 'Invite someone by e-mail',
        description:
          'A membership in the `invited` state and a single-use link (72 hours) e-mailed to the address. Inviting an address already invited sends a new link with the new role.',
        body: InviteMemberBody,
        response: { 201: success(Member), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const member = await inviteMember(
        request.db,
        sessionOf(request),
        request.body,
        publicUrlOf(request),
        app.deps.clock.now(),
      );
      return reply.code(201).send(presentMember(member));
    },
  );
};

const updateMemberRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/members/:id',
    {
      config: { resource: 'Member' },
      schema: {
        tags: ['team'],
        operationId: 'updateMember',
        summary: 'Change a member’s role',
        description: 'The last owner cannot be demoted (409 `last_owner`).',
        params: IdParams,
        body: UpdateMemberBody,
        response: { 200: success(Member), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentMember(
        await changeMemberRole(
          request.db,
          sessionOf(request).organizerId,
          request.params.id,
          request.body.role,
          app.deps.clock.now(),
        ),
      ),
  );
};

const removeMemberRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/members/:id',
    {
      config: { resource: 'Member' },
      schema: {
        tags: ['team'],
        operationId: 'removeMember',
        summary: 'Remove a member or withdraw an invitation',
        description:
          'Their sessions on this organizer end at once. The last owner cannot be removed (409 `last_owner`).',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeMember(request.db, sessionOf(request).organizerId, request.params.id);
      return reply.code(204).send();
    },
  );
};

/** The team routes. */
export const memberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [listMembersRoute, inviteMemberRoute, updateMemberRoute, removeMemberRoute])
    await app.register(route);
};
