/**
 * The routes table: every screen of the console, its path under /app, its entry in the
 * navigation (if any) and whether it needs a key with the `write` scope. A new screen is
 * one row here; the router, the navigation and the deep links (Marquee serves index.html
 * for every /app/ path that is not a file) follow from it.
 */
import type { ComponentType } from 'preact';
import { Door } from './screens/door.tsx';
import { EventCreate } from './screens/event-create.tsx';
import { EventDetailScreen } from './screens/event-detail.tsx';
import { EventsList } from './screens/events-list.tsx';
import { Home, NotFound } from './screens/home.tsx';
import { OrderDetailScreen, OrdersList } from './screens/orders.tsx';
import { Sell } from './screens/sell.tsx';
import { WebhookDeliveryScreen, WebhookEndpointScreen, WebhooksList } from './screens/webhooks.tsx';

interface ConsoleRoute {
  /** preact-iso pattern: `/app/events/:id`. More specific paths come first. */
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each screen takes its own route params
  component: ComponentType<any>;
  /** The label in the main navigation; absent: reached by links only. */
  nav?: string;
  /** `write`: shown to keys with the write scope only (docs/console.md, "Read-only keys"). */
  requires?: 'write';
}

const ROUTES: readonly ConsoleRoute[] = [
  { path: '/app', component: Home },
  { path: '/app/', component: Home },
  { path: '/app/events', component: EventsList, nav: 'Events' },
  { path: '/app/events/new', component: EventCreate, requires: 'write' },
  { path: '/app/events/:id', component: EventDetailScreen },
  { path: '/app/sell', component: Sell, nav: 'Sell', requires: 'write' },
  { path: '/app/orders', component: OrdersList, nav: 'Orders' },
  { path: '/app/orders/:id', component: OrderDetailScreen },
  { path: '/app/webhooks', component: WebhooksList, nav: 'Webhooks' },
  { path: '/app/webhooks/deliveries/:id', component: WebhookDeliveryScreen },
  { path: '/app/webhooks/:id', component: WebhookEndpointScreen },
  // Check-ins are writes: a read-only key has no door (docs/door.md).
  { path: '/app/door', component: Door, nav: 'Door', requires: 'write' },
];

/** The navigation entries the key may use. */
export function navigationOf(canWrite: boolean): ConsoleRoute[] {
  return ROUTES.filter((r) => r.nav !== undefined && (r.requires !== 'write' || canWrite));
}

/**
 * The routes as the key sees them: a write route opened with a read-only key shows
 * NotFound (it keeps its place, so `/app/events/new` is not taken for an event id).
 */
export function routesOf(canWrite: boolean): ConsoleRoute[] {
  return ROUTES.map((r) => (r.requires !== 'write' || canWrite ? r : { ...r, component: NotFound }));
}

export { NotFound };
