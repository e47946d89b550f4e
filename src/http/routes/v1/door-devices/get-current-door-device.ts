/** GET /v1/door_device: the door device of the calling device key (docs/dashboard.md, "Door devices"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { describeDoorDevice } from '../../../../domain/devices/claims.ts';
import { notFound } from '../../../../errors/domain-error.ts';
import { tenantOf } from '../../../context.ts';
import { presentDoorDeviceSelf } from '../../../presenters/door-devices.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { DoorDeviceSelf } from '../../../schemas/door-devices.ts';

export const getCurrentDoorDeviceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/door_device',
    {
      // A device key only: other keys have no device.
      config: { scope: ['check_in'] },
      schema: {
        tags: ['devices'],
        operationId: 'getCurrentDoorDevice',
        summary: 'Get the door device of the calling device key',
        description:
          'Its name, online-only setting, organizer (name, time zone) and the performances it may admit, by start, with their event. Only a device key (scope `check_in`) may call it; another key answers 403 `forbidden_scope`.',
        response: { 200: success(DoorDeviceSelf), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      if (auth.deviceId === null) throw notFound('Door device');
      return presentDoorDeviceSelf(await describeDoorDevice(request.db, auth.organizerId, auth.deviceId));
    },
  );
};
