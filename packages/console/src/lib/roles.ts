/** The roles a member can have (docs/dashboard.md, "Roles and permissions"), from most to least, in words. */
import type { Role } from './dashboard.ts';

export const ROLES: readonly Role[] = ['owner', 'manager', 'box_office', 'door', 'viewer'];

const LABELS: Readonly<Record<Role, string>> = {
  owner: 'Owner',
  manager: 'Manager',
  box_office: 'Box office',
  door: 'Door',
  viewer: 'Viewer',
};

export const roleLabel = (role: Role): string => LABELS[role];
