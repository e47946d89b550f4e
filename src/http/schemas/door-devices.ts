/**
 * Door devices (docs/dashboard.md, "Door devices"): the dashboard's DoorDevice and its
 * requests, and the device's own view (DoorDeviceSelf) and claim on /v1, components of
 * the API's document.
 */
import { Type } from '@sinclair/typebox';
import { Nullable, ref, StringEnum, Timestamp, Uuid } from './common.ts';

const DEVICE_STATUSES = ['awaiting_pairing', 'pairing_expired', 'active', 'revoked'] as const;

const DeviceName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'what the organizer calls the device, such as "North gate 1"',
});
const PerformanceIds = Type.Array(Uuid, {
  minItems: 1,
  maxItems: 50,
  description: 'the performances the device may admit: 1 to 50, each once, each of the organizer',
});
const OnlineOnly = Type.Boolean({
  description: 'when true, the device does not admit from its local copy while offline; scans wait for the network',
});

/** A moment that may not have come yet. */
const Moment = (description: string) => Type.Union([Timestamp, Type.Null()], { description });

const DevicePerformance = Type.Object({
  id: Uuid,
  event_id: Uuid,
  event_name: Type.String({ description: 'the title of the event' }),
  starts_at: Timestamp,
  timezone: Type.String({ description: 'IANA time zone of the event' }),
});

export const DoorDevice = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    performance_ids: Type.Array(Uuid, { description: 'as last set' }),
    performances: Type.Array(DevicePerformance, { description: 'the performances of performance_ids, by start' }),
    online_only: Type.Boolean(),
    status: StringEnum(DEVICE_STATUSES, {
      description:
        '`awaiting_pairing`: its pairing code is still good; `pairing_expired`: the code expired unused (issue a new one); `active`: paired, its key works; `revoked`: its key answers 401',
    }),
    provisioning_expires_at: Moment('when the last pairing code issued to the device expires (or expired)'),
    claimed_at: Moment('when the device claimed its pairing code; null until paired'),
    revoked_at: Moment('when the device and its key were revoked'),
    last_seen_at: Moment('the last use of its key, to the minute'),
    last_synced_at: Moment('the last time it read the changes of its local copy (GET /v1/door_tickets)'),
    scans_today: Type.Integer({
      minimum: 0,
      description: 'scans the device uploaded since midnight in the organizer’s time zone',
    }),
    created_at: Timestamp,
    created_by: Nullable(
      Type.Object(
        { id: Uuid, name: Nullable(Type.String()), email: Nullable(Type.String()) },
        { description: 'the person who created the device' },
      ),
    ),
  },
  { description: 'A door device: a phone or scanner that checks tickets in with a key of its own' },
);

export const ProvisionedDoorDevice = Type.Composite(
  [
    DoorDevice,
    Type.Object({
      provisioning_token: Type.String({
        description:
          'the one-time pairing code (`mqd_…`), good for 10 minutes and one claim; shown in this answer only',
      }),
      provisioning_url: Type.String({
        description: 'the console’s device page with the code: `<PUBLIC_URL>/app/device#pair=<token>`',
      }),
      provisioning_qr: Type.String({
        description: 'a QR code of provisioning_url, as a `data:image/svg+xml` URL to show to the device’s camera',
      }),
    }),
  ],
  { description: 'A door device with a new pairing code (shown once)' },
);

export const CreateDoorDeviceBody = Type.Object(
  { name: DeviceName, performance_ids: PerformanceIds, online_only: Type.Optional(OnlineOnly) },
  { additionalProperties: false },
);

export const UpdateDoorDeviceBody = Type.Object(
  {
    name: Type.Optional(DeviceName),
    online_only: Type.Optional(OnlineOnly),
    performance_ids: Type.Optional(PerformanceIds),
  },
  { additionalProperties: false },
);

export const DoorDeviceSelf = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    online_only: Type.Boolean({ description: 'admit only online: never from the local copy' }),
    organizer: Type.Object({
      id: Uuid,
      name: Type.String(),
      timezone: Type.String({ description: 'IANA time zone id of the organizer' }),
    }),
    performances: Type.Array(
      Type.Object({
        id: Uuid,
        event_id: Uuid,
        event_name: Type.String({ description: 'the title of the event' }),
        starts_at: Timestamp,
        ends_at: Timestamp,
        timezone: Type.String({ description: 'IANA time zone of the event' }),
      }),
      { description: 'the performances the device may admit, by start' },
    ),
  },
  { $id: 'DoorDeviceSelf', description: 'The door device of the calling device key, as it sees itself' },
);

export const DeviceClaimBody = Type.Object(
  {
    token: Type.String({
      description: 'the pairing code shown in the dashboard (`mqd_…`), or read from its QR code',
    }),
  },
  { additionalProperties: false },
);

export const ClaimedDoorDevice = Type.Object(
  {
    api_key: Type.String({
      description:
        'the device key (`mqk_…`, scope `check_in` only): send it as `Authorization: Bearer`; shown in this answer only',
    }),
    device: ref(DoorDeviceSelf),
  },
  { $id: 'ClaimedDoorDevice', description: 'The key of a door device that claimed its pairing code, and the device' },
);
