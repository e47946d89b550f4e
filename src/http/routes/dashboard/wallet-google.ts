/**
 * The organizer's Google Wallet settings (docs/dashboard.md, "Wallet passes"; docs/tickets.md,
 * "Wallet settings and their keys"). The service-account key goes in and never comes out.
 * PUT and DELETE are recorded in the audit log against the organizer, built from the stored
 * rows, so no key reaches it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  deleteGoogleWalletSettings,
  getGoogleWalletSettings,
  updateGoogleWalletSettings,
} from '../../../domain/organizers/google-wallet.ts';
import { errorResponses, success } from '../../schemas/common.ts';
import { NoContent } from '../../schemas/dashboard.ts';
import { GoogleWalletSettings, UpdateGoogleWalletSettings } from '../../schemas/google-wallet.ts';
import { sessionOf } from './session.ts';

export const walletGoogleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizer/wallet/google',
    {
      schema: {
        tags: ['organizer'],
        operationId: 'getGoogleWalletSettings',
        summary: 'The organizer’s Google Wallet issuer and service account',
        description:
          'The issuer id, the service account’s e-mail and its key’s id that sign the “Add to Google Wallet” links. The private key is never answered. 404 `resource_not_found` when Google Wallet is not configured.',
        response: { 200: success(GoogleWalletSettings), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getGoogleWalletSettings(request.db, sessionOf(request).organizerId),
  );

  app.put(
    '/organizer/wallet/google',
    {
      schema: {
        tags: ['organizer'],
        operationId: 'updateGoogleWalletSettings',
        summary: 'Configure Google Wallet',
        description:
          'Stores the issuer id and the service account’s JSON key file (its private key encrypted with the service’s WALLET_SECRETS_KEY), replacing any earlier settings. Checked before storing: the issuer id is digits, the key file is JSON of `type` "service_account" with a `client_email`, a `private_key_id` and an RSA `private_key`; each failure answers 400 `parameter_invalid` with `param` naming the field. A service without WALLET_SECRETS_KEY answers 409 `invalid_state`.',
        body: UpdateGoogleWalletSettings,
        response: { 200: success(GoogleWalletSettings), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) =>
      updateGoogleWalletSettings(
        request.db,
        sessionOf(request).organizerId,
        request.body,
        app.deps.config.walletSecretsKey,
      ),
  );

  app.delete(
    '/organizer/wallet/google',
    {
      schema: {
        tags: ['organizer'],
        operationId: 'deleteGoogleWalletSettings',
        summary: 'Remove the Google Wallet settings',
        description:
          'Removes the settings and the stored key: e-ticket mails carry no “Add to Google Wallet” link from now on. 204 also when there were none.',
        response: { 204: NoContent, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await deleteGoogleWalletSettings(request.db, sessionOf(request).organizerId);
      return reply.code(204).send();
    },
  );
};
