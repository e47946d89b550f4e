/**
 * Roles and their permissions (docs/dashboard.md, "Roles and permissions"): the one place
 * the matrix lives. The dashboard's route guard reads OPERATION_PERMISSIONS, the session
 * body lists permissionsOf(role) (the console's navigation reads that), and a test checks
 * that docs/dashboard.md prints this same table.
 */
import type { Role } from '../../db/schema.ts';

export type { Role };

/** From most to least. */
export const ROLES: readonly Role[] = ['owner', 'manager', 'box_office', 'door', 'viewer'];

export const ROLE_LABELS: Readonly<Record<Role, string>> = {
  owner: 'owner',
  manager: 'manager',
  box_office: 'box office',
  door: 'door',
  viewer: 'viewer',
};

interface PermissionRow {
  /** What the permission allows, in the words of the matrix. */
  allows: string;
  roles: readonly Role[];
}

export const PERMISSIONS = {
  read: {
    allows: 'read events, orders, tickets, webhooks, deliveries, reports',
    roles: ['owner', 'manager', 'box_office', 'viewer'],
  },
  catalog: {
    allows: 'create, edit, publish, archive events; questions; holds',
    roles: ['owner', 'manager'],
  },
  sell: {
    allows: 'sell (box office); settle a pay-later order; resend e-tickets',
    roles: ['owner', 'manager', 'box_office'],
  },
  refund: { allows: 'refund, cancel, transfer', roles: ['owner', 'manager'] },
  check_in: {
    allows: 'check in at the door screen, with the ticket lookups it needs',
    roles: ['owner', 'manager', 'box_office', 'door'],
  },
  webhooks: { allows: 'webhooks: endpoints, test button, redeliver, recover', roles: ['owner', 'manager'] },
  export: { allows: 'exports', roles: ['owner', 'manager', 'viewer'] },
  api_keys: { allows: 'developer settings: API keys', roles: ['owner'] },
  devices: { allows: 'door devices: provision, revoke', roles: ['owner', 'manager'] },
  team: { allows: 'team: invite, change role, remove; organizer settings; audit log', roles: ['owner'] },
} as const satisfies Record<string, PermissionRow>;

export type Permission = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

export function permissionsOf(role: Role): Permission[] {
  return ALL_PERMISSIONS.filter((p) => (PERMISSIONS[p].roles as readonly Role[]).includes(role));
}

/** What opens a dashboard operation: any one of the permissions, or every signed-in user. */
type Requirement = readonly Permission[] | 'signed_in';

/** Reads of the door screen: what `read` allows, and the lookups check-in needs. */
const DOOR_LOOKUP: Requirement = ['read', 'check_in'];

/**
 * Every dashboard operation, by its OpenAPI operationId, and what opens it. A dashboard
 * route missing here cannot be mounted (src/http/plugins/session-auth.ts, assertOperationInMatrix).
 */
export const OPERATION_PERMISSIONS: Readonly<Record<string, Requirement>> = {
  // The session and the user's own profile.
  getSession: 'signed_in',
  signOut: 'signed_in',
  switchOrganizer: 'signed_in',
  listOwnSessions: 'signed_in',
  endOwnSession: 'signed_in',
  updateProfile: 'signed_in',
  changePassword: 'signed_in',
  startTotpEnrolment: 'signed_in',
  confirmTotpEnrolment: 'signed_in',
  removeTotp: 'signed_in',
  // Team.
  listMembers: ['team'],
  inviteMember: ['team'],
  updateMember: ['team'],
  removeMember: ['team'],
  // Developer settings.
  listApiKeys: ['api_keys'],
  createApiKey: ['api_keys'],
  revokeApiKey: ['api_keys'],
  // The dashboard's own operations on the organizer's resources.
  testWebhookEndpoint: ['webhooks'],
  publishEvent: ['catalog'],
  settleOrder: ['sell'],
  refundOrder: ['refund'],
  cancelOrder: ['refund'],
  transferTicket: ['refund'],
  settleRefund: ['refund'],
  resendTickets: ['sell'],
  // The catalog: schedule, ticket types, questions and holds of an existing event.
  addPerformances: ['catalog'],
  addTicketTypes: ['catalog'],
  createQuestion: ['catalog'],
  updateQuestion: ['catalog'],
  listHolds: ['read'],
  createHold: ['catalog'],
  releaseHold: ['catalog'],
  // The language of an event's e-mails, PDF tickets and passes (dashboard only).
  getEventTicketSettings: ['read'],
  updateEventTicketSettings: ['catalog'],
  // Organizer settings, reports and the audit log.
  getOrganizerSettings: ['team'],
  updateOrganizerSettings: ['team'],
  getAppleWalletSettings: ['team'],
  updateAppleWalletSettings: ['team'],
  deleteAppleWalletSettings: ['team'],
  getGoogleWalletSettings: ['team'],
  updateGoogleWalletSettings: ['team'],
  deleteGoogleWalletSettings: ['team'],
  getEventReport: ['read'],
  getAttendance: ['read'],
  listAuditLog: ['team'],
  exportAuditLog: ['team'],
  // Door devices (docs/dashboard.md, "Door devices").
  listDoorDevices: ['devices'],
  createDoorDevice: ['devices'],
  getDoorDevice: ['devices'],
  updateDoorDevice: ['devices'],
  revokeDoorDevice: ['devices'],
  reissueDoorDeviceToken: ['devices'],
  // The /v1 operations mounted again (docs/dashboard.md, "One operation, two surfaces").
  listEvents: DOOR_LOOKUP,
  getEvent: DOOR_LOOKUP,
  listEventPerformances: DOOR_LOOKUP,
  getPerformance: DOOR_LOOKUP,
  listEventQuestions: ['read'],
  getPerformanceAvailability: ['read'],
  getPerformanceCalendar: ['read'],
  createEvent: ['catalog'],
  updateEvent: ['catalog'],
  listWebhookEndpoints: ['read'],
  getWebhookEndpoint: ['read'],
  listWebhookDeliveries: ['read'],
  getWebhookDelivery: ['read'],
  createWebhookEndpoint: ['webhooks'],
  updateWebhookEndpoint: ['webhooks'],
  deleteWebhookEndpoint: ['webhooks'],
  rotateWebhookEndpointSecret: ['webhooks'],
  redeliverWebhookDelivery: ['webhooks'],
  recoverWebhookEndpoint: ['webhooks'],
  listOrders: ['read'],
  // The door reads a refused ticket's order to say why (not paid, cancelled).
  getOrder: DOOR_LOOKUP,
  getOrderTicketsPdf: ['read'],
  getTicketApplePass: ['read'],
  getOrderGoogleWallet: ['read'],
  createOrder: ['sell'],
  listTickets: DOOR_LOOKUP,
  getTicket: DOOR_LOOKUP,
  checkInTicket: ['check_in'],
  exportEventOrders: ['export'],
  exportEventTickets: ['export'],
};

/** Whether the role may run the operation; the permission to name in a refusal otherwise. */
export function judge(role: Role, requirement: Requirement): { allowed: true } | { allowed: false; needs: Permission } {
  if (requirement === 'signed_in') return { allowed: true };
  const held = permissionsOf(role);
  if (requirement.some((p) => held.includes(p))) return { allowed: true };
  return { allowed: false, needs: requirement[0]! };
}
