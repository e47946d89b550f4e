/**
 * POST /v1/device_claims (docs/dashboard.md, "Door devices"): a door device trades its
 * one-time pairing code for its device key. No Authorization: registered under /v1 beside
 * the API-key scope, not in it, so only the pre-auth rate limit per client IP (a root
 * hook, src/app.ts) counts it. The claim is audited as the creation of the device key,
 * by that key: its scope records every successful write (src/http/plugins/audit.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { claimDoorDevice } from '../../../../domain/devices/claims.ts';
import { registerAudit } from '../../../plugins/audit.ts';
import { presentClaimedDoorDevice } from '../../../presenters/door-devices.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { ClaimedDoorDevice, DeviceClaimBody } from '../../../schemas/door-devices.ts';

const claimDoorDeviceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/device_claims',
    {
      schema: {
        tags: ['devices'],
        operationId: 'claimDoorDevice',
        summary: 'Pair a door device: trade its pairing code for its device key',
        description:
          'No Authorization. The code shown in the dashboard (or its QR code) is good once, for 10 minutes: the answer carries the device key (scope `check_in` only, limited to the device’s performances), in this answer only, and the device. A used, expired, revoked or unknown code answers 400 `parameter_invalid` naming `token`, with one detail whatever the reason. Of two claims of one code at once, one succeeds.',
        security: [],
        body: DeviceClaimBody,
        response: { 201: success(ClaimedDoorDevice), ...errorResponses(400, 413, 415) },
      },
    },
    async (request, reply) => {
      const claimed = await claimDoorDevice(request.db, request.body.token, app.deps.clock.now());
      // From here the request acts as the device key it created (the audit entry's actor).
      request.auth = claimed.auth;
      return reply.code(201).send(presentClaimedDoorDevice(claimed));
    },
  );
};

/** The public /v1 routes of door devices: the claim. */
export const deviceClaimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  registerAudit(app, 'v1');
  await app.register(claimDoorDeviceRoute);
};
