/**
 * The organizer's Apple Wallet settings (docs/dashboard.md, "Wallet passes"; docs/tickets.md,
 * "Wallet settings and their keys"). The private key goes in and never comes out. PUT and
 * DELETE are recorded in the audit log against the organizer, built from the stored rows,
 * so no key or passphrase reaches it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  deleteAppleWalletSettings,
  getAppleWalletSettings,
  updateAppleWalletSettings,
} from '../../../domain/organizers/apple-wallet.ts';
import { AppleWalletSettings, UpdateAppleWalletSettings } from '../../schemas/apple-wallet.ts';
import { errorResponses, success } from '../../schemas/common.ts';
import { sessionOf } from './session.ts';

export const walletAppleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/organizer/wallet/apple',
    {
      schema: {
        tags: ['organizer'],
        operationId: 'getAppleWalletSettings',
        summary: 'The organizer’s Apple Wallet pass certificate',
        description:
          'Whether tickets get an Apple Wallet pass, the pass type and team identifiers, the certificate’s subject and expiry, and the pass colours. The private key is never answered.',
        response: { 200: success(AppleWalletSettings), ...errorResponses(401, 403) },
      },
    },
    async (request) => getAppleWalletSettings(request.db, sessionOf(request).organizerId),
  );

  app.put(
    '/organizer/wallet/apple',
    {
      schema: {
        tags: ['organizer'],
        operationId: 'updateAppleWalletSettings',
        summary: 'Configure the Apple Wallet pass certificate',
        description:
          'Stores the pass type certificate, its private key (encrypted with the service’s WALLET_SECRETS_KEY), Apple’s WWDR certificate and optional colours, replacing any earlier settings. Checked before storing: each PEM parses, the key matches the certificate, the certificate has not expired, the pass type and team identifiers are those the certificate names, and a trial pass signs; each failure answers 400 `parameter_invalid` with `param` naming the field. A service without WALLET_SECRETS_KEY answers 409 `invalid_state`.',
        body: UpdateAppleWalletSettings,
        response: { 200: success(AppleWalletSettings), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) =>
      updateAppleWalletSettings(
        request.db,
        sessionOf(request).organizerId,
        request.body,
        app.deps.config.walletSecretsKey,
        app.deps.clock.now(),
      ),
  );

  app.delete(
    '/organizer/wallet/apple',
    {
      schema: {
        tags: ['organizer'],
        operationId: 'deleteAppleWalletSettings',
        summary: 'Remove the Apple Wallet pass certificate',
        description:
          'Removes the settings and the stored key: tickets get no Apple Wallet pass from now on. Answers the unconfigured settings, also when there were none.',
        response: { 200: success(AppleWalletSettings), ...errorResponses(401, 403) },
      },
    },
    async (request) => deleteAppleWalletSettings(request.db, sessionOf(request).organizerId),
  );
};
