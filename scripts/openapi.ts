/**
 * Writes the OpenAPI documents generated from the route schemas (for linting in CI and
 * for the client generators): the API's (/v1, /admin/v1) to the first path, and, given a
 * second path, the dashboard API's (docs/dashboard.md).
 */
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';

const out = process.argv[2] ?? 'openapi.json';
const dashboardOut = process.argv[3];
const database = await openDatabase({});
const app = await buildApp({ config: loadConfig({}), database, adminToken: 'x'.repeat(32) });
await app.ready();
writeFileSync(out, JSON.stringify(app.swagger(), null, 2));
if (dashboardOut !== undefined) writeFileSync(dashboardOut, JSON.stringify(app.dashboardSwagger(), null, 2));
await app.close();
await database.close();
console.log(`wrote ${[out, dashboardOut].filter(Boolean).join(' and ')}`);
