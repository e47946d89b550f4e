/** Writes the OpenAPI document generated from the route schemas (for linting in CI). */
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';

const out = process.argv[2] ?? 'openapi.json';
const database = await openDatabase({});
const app = await buildApp({ config: loadConfig({}), database, adminToken: 'x'.repeat(32) });
await app.ready();
writeFileSync(out, JSON.stringify(app.swagger(), null, 2));
await app.close();
await database.close();
console.log(`wrote ${out}`);
