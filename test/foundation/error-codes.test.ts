import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { ALL_ERROR_CODES, ERROR_CODES } from '../../src/errors/codes.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { problemOf, useTestApp } from '../helpers/app.ts';

/** The rows of the codes table in docs/errors.md: code, status and kind as written there. */
async function documentedCodes(): Promise<Array<{ code: string; status: number; kind: string }>> {
  const text = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  return [...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| ([a-z_]+) \|/gm)].map((m) => ({
    code: m[1]!,
    status: Number(m[2]),
    kind: m[3]!,
  }));
}

type Schema = { properties?: Record<string, { enum?: unknown[] }>; required?: string[] };

describe('the closed set of error codes', () => {
  const t = useTestApp();

  test('docs/errors.md lists every code once, with its status and kind', async () => {
    const rows = await documentedCodes();
    assert.deepEqual(
      rows.map((r) => r.code),
      ALL_ERROR_CODES,
    );
    for (const row of rows) {
      assert.equal(row.status, ERROR_STATUS[row.code as keyof typeof ERROR_STATUS], row.code);
      assert.equal(row.kind, ERROR_CODES[row.code as keyof typeof ERROR_CODES], row.code);
    }
  });

  test('every error response of the OpenAPI document is problem+json, the Problem component with the code enum', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
      paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
      components: { schemas: Record<string, Schema> };
    }>();
    const problem = doc.components.schemas['Problem'];
    assert.deepEqual(problem?.properties?.code?.enum, ALL_ERROR_CODES);
    assert.ok(problem?.required?.includes('code'));
    assert.ok(problem?.properties?.param && !problem.required?.includes('param'));
    let problems = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses ?? {});
        if (path !== '/healthz' && path !== '/readyz') {
          assert.ok(statuses.includes('429') && statuses.includes('503'), `${method} ${path} declares 429 and 503`);
        }
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          problems += 1;
          assert.deepEqual(
            response.content,
            { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
            `${method} ${path} ${status}`,
          );
        }
      }
    }
    assert.ok(problems > 0);
  });

  test('a field at fault is named in param as a dotted path, beside its code', async () => {
    const org = await t.createOrganizer();
    const res = await t.api(org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: 'x', ticket_type_id: 'y', quantity: 1 }],
      tender: 'cash',
      buyer: { first_name: 'A' },
      extra: 1,
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), problemOf(400, 'Unknown field `extra` in body.', 'parameter_unknown', 'extra'));
    const missing = await t.admin('POST', '/admin/v1/organizers', {});
    assert.deepEqual(
      missing.json(),
      problemOf(400, 'Missing required field `name` in body.', 'parameter_missing', 'name'),
    );
  });
});
