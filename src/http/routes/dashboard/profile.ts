/** The signed-in user's own profile (docs/dashboard.md, "Profile"): name, password, TOTP. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  changePassword,
  confirmTotpEnrolment,
  removeTotp,
  startTotpEnrolment,
  updateProfile,
} from '../../../domain/people/profile.ts';
import { errorResponses, success } from '../../schemas/common.ts';
import {
  ChangePasswordBody,
  PasswordBody,
  RecoveryCodes,
  SessionBody,
  TotpConfirmBody,
  TotpEnrolment,
  UpdateProfileBody,
} from '../../schemas/dashboard.ts';
import { presentSession } from '../../presenters/people.ts';
import { signInOriginOf, setSessionCookie } from '../../plugins/session-auth.ts';
import { sessionOf } from './session.ts';

const updateProfileRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/profile',
    {
      schema: {
        tags: ['profile'],
        operationId: 'updateProfile',
        summary: 'Change the user’s name',
        body: UpdateProfileBody,
        response: { 200: success(SessionBody), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => {
      await updateProfile(request.db, sessionOf(request), request.body, app.deps.clock.now());
      return presentSession(request.db, sessionOf(request));
    },
  );
};

const changePasswordRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/profile/password',
    {
      schema: {
        tags: ['profile'],
        operationId: 'changePassword',
        summary: 'Change the password',
        description:
          'Checks the current password and the policy; every session of the user ends and this browser gets a new one (new cookie, new CSRF token).',
        body: ChangePasswordBody,
        response: { 200: success(SessionBody), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { config, clock } = app.deps;
      const issued = await changePassword(
        request.db,
        sessionOf(request),
        request.body,
        signInOriginOf(request),
        config.sessions,
        clock.now(),
      );
      setSessionCookie(request, reply, issued);
      return presentSession(request.db, issued.auth);
    },
  );
};

const startTotpEnrolmentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/profile/totp',
    {
      schema: {
        tags: ['profile'],
        operationId: 'startTotpEnrolment',
        summary: 'Start enrolling an authenticator app',
        description: 'A new secret, as text, an otpauth URL and a QR code; confirm it with a code to turn TOTP on.',
        response: { 201: success(TotpEnrolment), ...errorResponses(401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await startTotpEnrolment(request.db, sessionOf(request), app.deps.clock.now())),
  );
};

const confirmTotpEnrolmentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/profile/totp/confirm',
    {
      schema: {
        tags: ['profile'],
        operationId: 'confirmTotpEnrolment',
        summary: 'Confirm the authenticator app with a code',
        description: 'Turns TOTP on and answers ten single-use recovery codes, shown this once.',
        body: TotpConfirmBody,
        response: { 200: success(RecoveryCodes), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => confirmTotpEnrolment(request.db, sessionOf(request), request.body.code, app.deps.clock.now()),
  );
};

const removeTotpRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/profile/totp/remove',
    {
      schema: {
        tags: ['profile'],
        operationId: 'removeTotp',
        summary: 'Turn TOTP off',
        description: 'Needs the password; the recovery codes go with it.',
        body: PasswordBody,
        response: { 200: success(SessionBody), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => {
      await removeTotp(request.db, sessionOf(request), request.body.password, app.deps.clock.now());
      return presentSession(request.db, sessionOf(request));
    },
  );
};

/** The profile routes. */
export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [
    updateProfileRoute,
    changePasswordRoute,
    startTotpEnrolmentRoute,
    confirmTotpEnrolmentRoute,
    removeTotpRoute,
  ])
    await app.register(route);
};
