/**
 * The routes table: every screen of the console, its path under /app, its entry in the
 * navigation (if any) and the permission it needs (docs/dashboard.md, "Roles and
 * permissions"; the session body lists the role's). A new screen is one row here; the
 * router, the navigation and the deep links (Marquee serves index.html for every /app/
 * path that is not a file) follow from it.
 */
import type { ComponentType } from 'preact';
import type { Permission, SessionBody } from './lib/dashboard.ts';
import { AttendanceScreen } from './screens/attendance.tsx';
import { AuditLog } from './screens/audit-log.tsx';
import { Developer } from './screens/developer.tsx';
import { Device } from './screens/device.tsx';
import { Devices } from './screens/devices.tsx';
import { Door } from './screens/door.tsx';
import { EventCreate } from './screens/event-create.tsx';
import { EventDetailScreen } from './screens/event-detail.tsx';
import { EventsList } from './screens/events-list.tsx';
import { Home, NotFound } from './screens/home.tsx';
import { Invite } from './screens/invite.tsx';
import { OrderDetailScreen, OrdersList } from './screens/orders.tsx';
import { Profile } from './screens/profile.tsx';
import { EventReportScreen } from './screens/reports.tsx';
import { Reset } from './screens/reset.tsx';
import { Sell } from './screens/sell.tsx';
import { Settings } from './screens/settings.tsx';
import { Setup } from './screens/setup.tsx';
import { Team } from './screens/team.tsx';
import { WebhookDeliveryScreen, WebhookEndpointScreen, WebhooksList } from './screens/webhooks.tsx';

interface ConsoleRoute {
  /** preact-iso pattern: `/app/events/:id`. More specific paths come first. */
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each screen takes its own route params
  component: ComponentType<any>;
  /** The label in the main navigation; absent: reached by links only. */
  nav?: string;
  /** The permission the screen needs; absent: every signed-in person (the profile). */
  requires?: Permission;
}

const ROUTES: readonly ConsoleRoute[] = [
  { path: '/app', component: Home },
  { path: '/app/', component: Home },
  { path: '/app/events', component: EventsList, nav: 'Events', requires: 'read' },
  { path: '/app/events/new', component: EventCreate, requires: 'catalog' },
  { path: '/app/events/:id/report', component: EventReportScreen, requires: 'read' },
  { path: '/app/events/:id', component: EventDetailScreen, requires: 'read' },
  { path: '/app/sell', component: Sell, nav: 'Sell', requires: 'sell' },
  { path: '/app/orders', component: OrdersList, nav: 'Orders', requires: 'read' },
  { path: '/app/orders/:id', component: OrderDetailScreen, requires: 'read' },
  { path: '/app/webhooks', component: WebhooksList, nav: 'Webhooks', requires: 'read' },
  { path: '/app/webhooks/deliveries/:id', component: WebhookDeliveryScreen, requires: 'read' },
  { path: '/app/webhooks/:id', component: WebhookEndpointScreen, requires: 'read' },
  // The door reads the events it needs with `check_in` alone (docs/dashboard.md): a door role has the door only.
  { path: '/app/door', component: Door, nav: 'Door', requires: 'check_in' },
  { path: '/app/attendance', component: AttendanceScreen, nav: 'Attendance', requires: 'read' },
  { path: '/app/devices', component: Devices, nav: 'Devices', requires: 'devices' },
  { path: '/app/team', component: Team, nav: 'Team', requires: 'team' },
  { path: '/app/developer', component: Developer, nav: 'Developer', requires: 'api_keys' },
  { path: '/app/settings', component: Settings, nav: 'Settings', requires: 'team' },
  { path: '/app/audit', component: AuditLog, nav: 'Audit log', requires: 'team' },
  { path: '/app/profile', component: Profile },
];

type Can = (permission: Permission) => boolean;

const allowed = (route: ConsoleRoute, can: Can) => route.requires === undefined || can(route.requires);

/** The navigation entries the role may use. */
export function navigationOf(can: Can): ConsoleRoute[] {
  return ROUTES.filter((r) => r.nav !== undefined && allowed(r, can));
}

/**
 * The routes as the role sees them: a screen the role may not use shows NotFound (it keeps
 * its place, so `/app/events/new` is not taken for an event id).
 */
export function routesOf(can: Can): ConsoleRoute[] {
  return ROUTES.map((r) => (allowed(r, can) ? r : { ...r, component: NotFound }));
}

/** The pages of the one-time links (docs/dashboard.md), open without a session. */
export const PUBLIC_SCREENS: Readonly<
  Record<string, ComponentType<{ onSignedIn: (body: SessionBody) => void }> | undefined>
> = {
  '/app/reset': Reset,
  '/app/invite': Invite,
  '/app/setup': Setup,
  // The door device app: no session, it signs its /v1 calls with its device key (docs/door.md).
  '/app/device': Device,
};

export { NotFound };
