/**
 * The SDK's generated types (packages/sdk/src/generated/openapi.ts) are what
 * openapi-typescript makes of the OpenAPI document a live service serves at
 * /v1/openapi.json: the same comparison `npm run sdk:check` makes in CI (docs/sdk.md,
 * "Keeping the types in step"), here on the served document.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { useTestApp } from '../helpers/app.ts';

const COMMITTED = path.resolve(import.meta.dirname, '../../packages/sdk/src/generated/openapi.ts');
const t = useTestApp();

test('the committed SDK types are those of the served OpenAPI document', async () => {
  const served = await t.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.equal(served.statusCode, 200);
  const generated = `${COMMENT_HEADER}${astToString(await openapiTS(served.body))}`;
  const committed = await readFile(COMMITTED, 'utf8');
  assert.ok(generated === committed, 'packages/sdk/src/generated/openapi.ts is stale: run `npm run sdk:generate`');
  assert.match(committed, /createOrder: \{/);
});
