import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { orderGoogleWalletUrl } from '../../../../domain/orders/order-google-wallet.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
import { GoogleWalletLink } from '../../../schemas/google-wallet.ts';

export const getOrderGoogleWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders/:id/google_wallet',
    {
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'getOrderGoogleWallet',
        summary: 'An order’s “Add to Google Wallet” link',
        description:
          'The link the buyer receives with the e-tickets: https://pay.google.com/gp/v/save/<jwt>, the JWT signed ' +
          'RS256 with the organizer’s service-account key and holding an event-ticket class per performance and an ' +
          'event-ticket object per ticket still valid (purchased or checked in), its QR code the ticket’s serial, in ' +
          'the event’s language (docs/tickets.md, "Google Wallet"). An unknown or another organizer’s order answers ' +
          '404, as does an organizer without Google Wallet settings; an order with no valid ticket left (all ' +
          'cancelled or refunded), or a stored key that no longer opens, 409 `invalid_state`.',
        params: IdParams,
        response: { 200: success(GoogleWalletLink), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const url = await orderGoogleWalletUrl(
        request.db,
        tenantOf(request).organizerId,
        request.params.id,
        app.deps.config.walletSecretsKey,
        app.deps.clock.now(),
      );
      // The link opens the door (it holds the tickets' serials): no cache keeps a copy.
      return reply.header('cache-control', 'no-store').send({ url });
    },
  );
};
