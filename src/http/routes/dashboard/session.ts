/**
 * The session API (docs/dashboard.md, "The session API"): sign in (public), read, sign
 * out here or everywhere, switch organizer, list and end the user's own sessions.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  endOwnSession,
  listOwnSessions,
  signIn,
  signOut,
  switchOrganizer,
  type SessionAuth,
} from '../../../domain/people/sessions.ts';
import { errorResponses, IdParams, success } from '../../schemas/common.ts';
import {
  NoContent,
  OwnSession,
  SessionBody,
  SignInBody,
  SignOutQuery,
  SwitchOrganizerBody,
} from '../../schemas/dashboard.ts';
import { presentOwnSession, presentSession } from '../../presenters/people.ts';
import {
  clearSessionCookie,
  limitSignInAttempts,
  signInOriginOf,
  setSessionCookie,
} from '../../plugins/session-auth.ts';

/** The signed-in person (the session hook guarantees one on these routes). */
export function sessionOf(request: { session: SessionAuth | undefined }): SessionAuth {
  if (!request.session) throw new Error('sessionOf() called on a route without a session');
  return request.session;
}

/** POST /dashboard/v1/session: public; the scope's other routes need the session it makes. */
export const signInRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/session',
    {
      config: { dashboardAccess: 'public' },
      schema: {
        tags: ['session'],
        operationId: 'signIn',
        summary: 'Sign in',
        description:
          'Checks the e-mail address and password (and the TOTP code when the user has one), then sets the session cookie. An unknown address and a wrong password get the same 401. Throttled per address and per client IP.',
        security: [],
        body: SignInBody,
        response: { 201: success(SessionBody), ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      await limitSignInAttempts(request, request.body.email);
      const { db, config, clock } = app.deps;
      const issued = await signIn(db, request.body, signInOriginOf(request), config.sessions, clock.now());
      setSessionCookie(request, reply, issued);
      return reply.code(201).send(await presentSession(db, issued.auth));
    },
  );
};

const getSessionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/session',
    {
      schema: {
        tags: ['session'],
        operationId: 'getSession',
        summary: 'The current session',
        description: 'The signed-in user, their memberships, the current organizer, role, permissions and CSRF token.',
        response: { 200: success(SessionBody), ...errorResponses(401) },
      },
    },
    async (request) => presentSession(request.db, sessionOf(request)),
  );
};

const signOutRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/session',
    {
      schema: {
        tags: ['session'],
        operationId: 'signOut',
        summary: 'Sign out',
        description: 'Ends this session, or with `everywhere=true` every session of the user, and clears the cookie.',
        querystring: SignOutQuery,
        response: { 204: NoContent, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      await signOut(request.db, sessionOf(request), request.query.everywhere === true);
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    },
  );
};

const switchOrganizerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/session/organizer',
    {
      config: { resource: 'Organizer' },
      schema: {
        tags: ['session'],
        operationId: 'switchOrganizer',
        summary: 'Switch organizer',
        description: 'Moves the session to another organizer the user is a member of; its role applies from now on.',
        body: SwitchOrganizerBody,
        response: { 200: success(SessionBody), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const auth = await switchOrganizer(
        request.db,
        sessionOf(request),
        request.body.organizer_id,
        app.deps.config.sessions,
      );
      return presentSession(request.db, auth);
    },
  );
};

const listOwnSessionsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/session/sessions',
    {
      schema: {
        tags: ['session'],
        operationId: 'listOwnSessions',
        summary: 'The user’s active sessions',
        description: 'Every live session of the signed-in user (device, IP, last use), most recently used first.',
        response: {
          200: success(
            Type.Object({ object: Type.Literal('list'), data: Type.Array(OwnSession), has_more: Type.Boolean() }),
          ),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      const rows = await listOwnSessions(
        request.db,
        sessionOf(request),
        app.deps.config.sessions,
        app.deps.clock.now(),
      );
      return { object: 'list' as const, data: rows.map(presentOwnSession), has_more: false };
    },
  );
};

const endOwnSessionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/session/sessions/:id',
    {
      config: { resource: 'Session' },
      schema: {
        tags: ['session'],
        operationId: 'endOwnSession',
        summary: 'End one of the user’s sessions',
        description: 'Signs that browser out at once.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await endOwnSession(request.db, sessionOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
};

/** The signed-in scope's session routes. */
export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [getSessionRoute, signOutRoute, switchOrganizerRoute, listOwnSessionsRoute, endOwnSessionRoute])
    await app.register(route);
};
