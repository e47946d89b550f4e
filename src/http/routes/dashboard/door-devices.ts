/**
 * Door devices (docs/dashboard.md, "Door devices"): an owner or manager (permission
 * `devices`) creates a device with a one-time pairing code and its QR code, lists and
 * reads devices, changes them, issues a new code to an unpaired one, and revokes them
 * with their key.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  createDoorDevice,
  getDoorDevice,
  listDoorDevices,
  reissueDoorDeviceToken,
  revokeDoorDevice,
  updateDoorDevice,
} from '../../../domain/devices/door-devices.ts';
import {
  errorResponses,
  IdParams,
  ListOf,
  PAGE_LIMIT_DEFAULT,
  PaginationQuery,
  success,
} from '../../schemas/common.ts';
import {
  CreateDoorDeviceBody,
  DoorDevice,
  ProvisionedDoorDevice,
  UpdateDoorDeviceBody,
} from '../../schemas/door-devices.ts';
import { presentList } from '../../presenters/list.ts';
import { presentDoorDevice, presentProvisionedDoorDevice } from '../../presenters/door-devices.ts';
import { publicUrlOf } from './public-url.ts';
import { sessionOf } from './session.ts';

const RESOURCE = { resource: 'Door device' } as const;
const TAGS = ['devices'];

const listDoorDevicesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/door_devices',
    {
      schema: {
        tags: TAGS,
        operationId: 'listDoorDevices',
        summary: 'The organizer’s door devices',
        description:
          'Every device, revoked ones included, newest first: its status, performances, last use of its key, last sync and scans uploaded today.',
        querystring: Type.Object(PaginationQuery, { additionalProperties: false }),
        response: { 200: success(ListOf(DoorDevice)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listDoorDevices(
        request.db,
        sessionOf(request).organizerId,
        { limit: request.query.limit ?? PAGE_LIMIT_DEFAULT, starting_after: request.query.starting_after },
        app.deps.clock.now(),
      );
      return presentList(page, presentDoorDevice);
    },
  );
};

const createDoorDeviceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/door_devices',
    {
      schema: {
        tags: TAGS,
        operationId: 'createDoorDevice',
        summary: 'Create a door device and its pairing code',
        description:
          'The device admits the performances given. The answer carries a one-time pairing code, good for 10 minutes, the console link that pairs with it and that link’s QR code; the code is in this answer only. A performance that is not the organizer’s, or one listed twice, answers 400 naming `performance_ids`.',
        body: CreateDoorDeviceBody,
        response: { 201: success(ProvisionedDoorDevice), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const provisioned = await createDoorDevice(
        request.db,
        session.organizerId,
        {
          name: request.body.name,
          performanceIds: request.body.performance_ids,
          onlineOnly: request.body.online_only,
          createdBy: session.userId,
        },
        app.deps.clock.now(),
      );
      return reply.code(201).send(await presentProvisionedDoorDevice(provisioned, publicUrlOf(request)));
    },
  );
};

const getDoorDeviceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/door_devices/:id',
    {
      config: RESOURCE,
      schema: {
        tags: TAGS,
        operationId: 'getDoorDevice',
        summary: 'Get a door device',
        description: 'A device of the organizer, in any state. Another organizer’s is not found.',
        params: IdParams,
        response: { 200: success(DoorDevice), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      presentDoorDevice(
        await getDoorDevice(request.db, sessionOf(request).organizerId, request.params.id, app.deps.clock.now()),
      ),
  );
};

const updateDoorDeviceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/door_devices/:id',
    {
      config: RESOURCE,
      schema: {
        tags: TAGS,
        operationId: 'updateDoorDevice',
        summary: 'Change a door device’s name, performances or online-only setting',
        description:
          'A partial update, in effect from the device’s next request (on other API instances within the key cache’s 2 seconds). A revoked device answers 409 `invalid_state`; an empty body 400 `empty_update`.',
        params: IdParams,
        body: UpdateDoorDeviceBody,
        response: { 200: success(DoorDevice), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentDoorDevice(
        await updateDoorDevice(
          request.db,
          app.deps.caches.apiKeys,
          sessionOf(request).organizerId,
          request.params.id,
          {
            name: request.body.name,
            onlineOnly: request.body.online_only,
            performanceIds: request.body.performance_ids,
          },
          app.deps.clock.now(),
        ),
      ),
  );
};

const revokeDoorDeviceRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/door_devices/:id/revoke',
    {
      config: RESOURCE,
      schema: {
        tags: TAGS,
        operationId: 'revokeDoorDevice',
        summary: 'Revoke a door device and its key',
        description:
          'The device and its key are revoked in one transaction: the key answers `/v1`’s generic 401 from its next request (on other API instances within the key cache’s 2 seconds), and an unused pairing code can no longer be claimed. Revoking a revoked device answers it unchanged.',
        params: IdParams,
        response: { 200: success(DoorDevice), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      presentDoorDevice(
        await revokeDoorDevice(
          request.db,
          app.deps.caches.apiKeys,
          sessionOf(request).organizerId,
          request.params.id,
          app.deps.clock.now(),
        ),
      ),
  );
};

const reissueDoorDeviceTokenRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/door_devices/:id/provisioning_token',
    {
      config: RESOURCE,
      schema: {
        tags: TAGS,
        operationId: 'reissueDoorDeviceToken',
        summary: 'Issue a new pairing code to an unpaired door device',
        description:
          'A new one-time code for 10 minutes, as create answers it; the previous code stops working. Only while the device is neither paired nor revoked: otherwise 409 `invalid_state`.',
        params: IdParams,
        response: { 201: success(ProvisionedDoorDevice), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const provisioned = await reissueDoorDeviceToken(
        request.db,
        sessionOf(request).organizerId,
        request.params.id,
        app.deps.clock.now(),
      );
      return reply.code(201).send(await presentProvisionedDoorDevice(provisioned, publicUrlOf(request)));
    },
  );
};

/** The door devices' routes. */
export const doorDeviceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [
    listDoorDevicesRoute,
    createDoorDeviceRoute,
    getDoorDeviceRoute,
    updateDoorDeviceRoute,
    revokeDoorDeviceRoute,
    reissueDoorDeviceTokenRoute,
  ])
    await app.register(route);
};
