/**
 * The one-time links' operations (docs/dashboard.md, "One-time links"): public, since the
 * person following a link has no session yet. Writes still pass the cross-site check.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  acceptInvitation,
  completePasswordReset,
  previewInvitation,
  requestPasswordReset,
  setUpOwner,
} from '../../../domain/people/links.ts';
import { errorResponses, success } from '../../schemas/common.ts';
import {
  AcceptInvitationBody,
  InvitationPreview,
  NoContent,
  PasswordResetBody,
  PasswordResetRequestBody,
  SessionBody,
  SetupBody,
  TokenBody,
} from '../../schemas/dashboard.ts';
import { presentSession } from '../../presenters/people.ts';
import { limitSignInAttempts, signInOriginOf, setSessionCookie } from '../../plugins/session-auth.ts';
import { publicUrlOf } from './public-url.ts';

const PUBLIC = { dashboardAccess: 'public' } as const;

const previewInvitationRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/invitation',
    {
      config: PUBLIC,
      schema: {
        tags: ['links'],
        operationId: 'previewInvitation',
        summary: 'What an invitation link offers',
        description: 'The organizer, address and role of an invitation, without accepting it.',
        security: [],
        body: TokenBody,
        response: { 200: success(InvitationPreview), ...errorResponses(400, 413, 415) },
      },
    },
    async (request) => previewInvitation(app.deps.db, request.body.token, app.deps.clock.now()),
  );
};

const acceptInvitationRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/invitation/accept',
    {
      config: PUBLIC,
      schema: {
        tags: ['links'],
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation and sign in',
        description:
          'A new account needs `name` and `password`; an address that already has an account joins with it, with its `password` (and `totp` when enrolled) as at sign-in. Sets the session cookie.',
        security: [],
        body: AcceptInvitationBody,
        response: { 201: success(SessionBody), ...errorResponses(400, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { db, config, clock } = app.deps;
      const issued = await acceptInvitation(db, request.body, signInOriginOf(request), config.sessions, clock.now());
      setSessionCookie(request, reply, issued);
      return reply.code(201).send(await presentSession(db, issued.auth));
    },
  );
};

const requestPasswordResetRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/password_resets',
    {
      config: PUBLIC,
      schema: {
        tags: ['links'],
        operationId: 'requestPasswordReset',
        summary: 'E-mail a password reset link',
        description:
          'Answers 202 whatever the address, so the answer never tells whether it has an account; one that has gets a link good for one hour. Throttled like sign-in.',
        security: [],
        body: PasswordResetRequestBody,
        response: { 202: NoContent, ...errorResponses(400, 413, 415) },
      },
    },
    async (request, reply) => {
      await limitSignInAttempts(request, request.body.email);
      await requestPasswordReset(app.deps.db, request.body.email, publicUrlOf(request), app.deps.clock.now());
      return reply.code(202).send();
    },
  );
};

const completePasswordResetRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/password_resets/complete',
    {
      config: PUBLIC,
      schema: {
        tags: ['links'],
        operationId: 'completePasswordReset',
        summary: 'Set a new password from a reset link',
        description: 'Every session of the user ends; sign in with the new password.',
        security: [],
        body: PasswordResetBody,
        response: { 204: NoContent, ...errorResponses(400, 413, 415) },
      },
    },
    async (request, reply) => {
      await completePasswordReset(app.deps.db, request.body, app.deps.clock.now());
      return reply.code(204).send();
    },
  );
};

const setUpOwnerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/setup',
    {
      config: PUBLIC,
      schema: {
        tags: ['links'],
        operationId: 'setUpOwner',
        summary: 'Create the first owner from the set-up link',
        description: 'The link the first start prints; creates the owner and signs them in.',
        security: [],
        body: SetupBody,
        response: { 201: success(SessionBody), ...errorResponses(400, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { db, config, clock } = app.deps;
      const issued = await setUpOwner(db, request.body, signInOriginOf(request), config.sessions, clock.now());
      setSessionCookie(request, reply, issued);
      return reply.code(201).send(await presentSession(db, issued.auth));
    },
  );
};

/** The one-time links' routes (public). */
export const linkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [
    previewInvitationRoute,
    acceptInvitationRoute,
    requestPasswordResetRoute,
    completePasswordResetRoute,
    setUpOwnerRoute,
  ])
    await app.register(route);
};
