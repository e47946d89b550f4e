/**
 * Door device test data (docs/dashboard.md, "Door devices"): an organizer with an owner
 * signed in and performances to admit, devices created on the dashboard API, claims of
 * their pairing codes on /v1 (no Authorization), and the pairing QR code read back.
 */
import assert from 'node:assert/strict';
import jsQRModule from 'jsqr';
import type { LightMyRequestResponse } from 'fastify';
import { problemOf, type DashboardSession, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { createEvent, performanceIdsOf, type CreatedEvent } from '../helpers/catalog.ts';

// The package's CommonJS export, as Node's ESM loader hands it over (as in test/people/totp.test.ts).
const jsQR = jsQRModule.default;

export const CLAIM_REFUSED = problemOf(
  400,
  'This pairing code cannot be used: it was already used, it expired (codes last 10 minutes) or it was never issued. Create a new one in the dashboard.',
  'parameter_invalid',
  'token',
);

/** What /v1 answers a key it does not accept (docs/errors.md, `unauthorized`). */
export const V1_UNAUTHORIZED = problemOf(
  401,
  'A valid API key is required: send it as "Authorization: Bearer <key>".',
  'unauthorized',
);

export const TOKEN_SHAPE = /^mqd_[A-Za-z0-9_-]{43}$/;
export const TEN_MINUTES_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A performance as a door device shows it (DoorDevice.performances; with ends_at for DoorDeviceSelf). */
interface DoorPerformance {
  id: string;
  event_id: string;
  event_name: string;
  starts_at: string;
  ends_at: string;
  timezone: string;
}

export interface DoorSetup {
  org: TestOrganizer;
  owner: { id: string; email: string; name: string; session: DashboardSession };
  /** Two events: the first with two performances (by start), the second with one. */
  events: CreatedEvent[];
  /** The three performances, by start: [first event's two, second event's one]. */
  performances: DoorPerformance[];
}

async function performanceOf(t: TestApp, key: string, event: CreatedEvent, id: string): Promise<DoorPerformance> {
  const res = await t.api(key, 'GET', `/v1/performances/${id}`);
  assert.equal(res.statusCode, 200, res.body);
  const p = res.json();
  return {
    id,
    event_id: event.id,
    event_name: event.title,
    starts_at: p.starts_at,
    ends_at: p.ends_at,
    timezone: event.timezone,
  };
}

/** An organizer, its owner signed in, and three performances of two events. */
export async function setupDoors(t: TestApp, settings?: Record<string, unknown>): Promise<DoorSetup> {
  const org = await t.createOrganizer(settings);
  const name = 'Olive Owner';
  const user = await t.createUser({ organizerId: org.id, role: 'owner', name });
  const session = await t.signIn(user.email, user.password);
  const at = (days: number) => new Date(t.clock.now().getTime() + days * DAY_MS).toISOString();
  const first = await createEvent(t, org.key, {
    title: 'Winter Gala',
    performances: [
      { starts_at: at(7), capacity: 100 },
      { starts_at: at(8), capacity: 100 },
    ],
  });
  const second = await createEvent(t, org.key, {
    title: 'Spring Recital',
    performances: [{ starts_at: at(9), capacity: 100 }],
  });
  const [a, b] = performanceIdsOf(first);
  const [c] = performanceIdsOf(second);
  return {
    org,
    owner: { id: user.id, email: user.email, name, session },
    events: [first, second],
    performances: [
      await performanceOf(t, org.key, first, a!),
      await performanceOf(t, org.key, first, b!),
      await performanceOf(t, org.key, second, c!),
    ],
  };
}

/** DoorDevice.performances: a performance without its end. */
export function listed({ ends_at: _end, ...performance }: DoorPerformance) {
  return performance;
}

/** POST /dashboard/v1/door_devices; throws unless it answers 201. */
export async function createDevice(
  t: TestApp,
  session: DashboardSession,
  body: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string; provisioning_token: string }> {
  const res = await t.dash(session, 'POST', '/dashboard/v1/door_devices', body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** POST /v1/device_claims, with no Authorization. */
export function claim(t: TestApp, token: unknown): Promise<LightMyRequestResponse> {
  return t.inject({
    method: 'POST',
    url: '/v1/device_claims',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ token }),
  });
}

/** Claims a device's code; throws unless it answers 201. Returns the device key. */
export async function claimKey(t: TestApp, token: string): Promise<string> {
  const res = await claim(t, token);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().api_key as string;
}

const PX_PER_MODULE = 6;

/**
 * The text of the QR code in a `data:image/svg+xml` URL as `qrcode` draws it: a path of
 * horizontal strokes half a module below each row's top ("M4 4.5h7m1 0h2…"), painted into
 * a luma image and read by jsQR, as a camera would.
 */
export function readSvgQr(dataUrl: string): string | undefined {
  const prefix = 'data:image/svg+xml;charset=utf-8,';
  assert.ok(dataUrl.startsWith(prefix), dataUrl.slice(0, 60));
  const svg = decodeURIComponent(dataUrl.slice(prefix.length));
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)![1]);
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg)![1]!;
  const modules = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path.matchAll(/([MmHhVv])(-?[\d.]+)(?:[ ,](-?[\d.]+))?/g)) {
    const n = Number(a);
    if (command === 'M') [x, y] = [n, Number(b)];
    else if (command === 'm') [x, y] = [x + n, y + Number(b)];
    else if (command === 'h') {
      for (let col = x; col < x + n; col++) modules[Math.floor(y)]![col] = true;
      x += n;
    } else throw new Error(`unexpected path command ${command}`);
  }
  const side = size * PX_PER_MODULE;
  const rgba = new Uint8ClampedArray(side * side * 4);
  for (let py = 0; py < side; py++)
    for (let px = 0; px < side; px++) {
      const dark = modules[Math.floor(py / PX_PER_MODULE)]![Math.floor(px / PX_PER_MODULE)];
      rgba.fill(dark ? 0 : 255, (py * side + px) * 4, (py * side + px) * 4 + 3);
      rgba[(py * side + px) * 4 + 3] = 255;
    }
  return jsQR(rgba, side, side)?.data;
}
