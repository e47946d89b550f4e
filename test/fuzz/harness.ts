/**
 * Runs one fuzz request against the app and checks every property docs/validation.md
 * ("Fuzzing") promises for it:
 * - never a 5xx (nor a 1xx/3xx); every response carries `x-request-id`;
 * - a 4xx is an `application/problem+json` problem whose `detail` is a sentence saying
 *   what was wrong (not the generic 500 text), and it left every table's row count as it
 *   was (the stored response of an Idempotency-Key may add its one row, as specified);
 * - a 2xx is `application/json` (`text/csv` with its header row for an export), validates against the operation's response schema for
 *   that status (the API's strict uuid and date-time formats, ids in lower case), and
 *   the next GET answers the same bytes: a GET is repeated; a write whose response schema
 *   is the one of a GET-by-id is followed by that GET of the returned id, plain or with
 *   every expansion it offers (unless the response was an idempotent replay of an earlier one).
 * A violation throws a FuzzViolation describing the request and the response.
 */
import { ALL_ERROR_CODES, type ErrorCode } from '../../src/errors/codes.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { STATUS_CODES } from 'node:http';
import { Ajv, type ValidateFunction } from 'ajv';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { addApiFormats } from '../../src/http/validation.ts';
import type { TestApp } from '../helpers/app.ts';
import { createRowCounter } from '../helpers/row-counts.ts';
import { forgetDeleted, rememberCreated, type Fixtures } from './fixtures.ts';
import type { FuzzRequest, Operation } from './requests.ts';
import { operationsOf } from './requests.ts';

const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';
const IDEMPOTENCY_TABLE = 'idempotency_keys';

class FuzzViolation extends Error {
  constructor(message: string, request: FuzzRequest, response: LightMyRequestResponse) {
    super(`${message}\n${describeExchange(request, response)}`);
    this.name = 'FuzzViolation';
  }
}

const clip = (text: string, max = 2000) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;

function describeExchange(request: FuzzRequest, response: LightMyRequestResponse): string {
  const payload =
    request.payload === undefined
      ? '(none)'
      : Buffer.isBuffer(request.payload)
        ? `<bytes ${request.payload.toString('hex').slice(0, 200)}>`
        : clip(request.payload);
  return [
    `request:  ${request.method} ${clip(request.url, 500)}   [${request.operationId}]`,
    `  mutations: ${request.mutations.length > 0 ? request.mutations.join('; ') : '(none: valid by the schemas)'}`,
    `  headers: ${JSON.stringify(request.headers)}`,
    `  body: ${payload}`,
    `response: ${response.statusCode}`,
    `  headers: ${JSON.stringify({ 'content-type': response.headers['content-type'], 'x-request-id': response.headers['x-request-id'], 'idempotent-replayed': response.headers['idempotent-replayed'] })}`,
    `  body: ${clip(response.body)}`,
  ].join('\n');
}

/** Everything one run needs: the app, its operations, compiled response schemas and the row counter. */
export interface FuzzTarget {
  t: TestApp;
  fixtures: Fixtures;
  operations: Operation[];
  /** Seen statuses and 4xx details, for the run summary. */
  stats: { statuses: Map<string, number>; details: Map<string, number> };
  validatorFor(op: Operation, status: number): ValidateFunction | undefined;
  /** The GET-by-id operation answering the same schema as this write's 2xx, if any. */
  readBackOf(op: Operation, status: number): Operation | undefined;
  countRows(): Promise<Record<string, number>>;
}

const withoutDescriptions = (schema: unknown) =>
  JSON.stringify(schema, (key, value) => (key === 'description' ? undefined : value));

export async function createFuzzTarget(t: TestApp, fixtures: Fixtures): Promise<FuzzTarget> {
  const operations = operationsOf(t.app.swagger());
  const ajv = addApiFormats(new Ajv({ strict: false, allErrors: true }));
  // Responses spell ids in lower case (docs/validation.md), stricter than requests.
  ajv.addFormat('uuid', LOWERCASE_UUID);
  const validators = new Map<string, ValidateFunction>();
  const getsBySchema = new Map<string, Operation>();
  for (const op of operations) {
    const schema = op.responses['200'];
    if (op.method === 'GET' && op.path.endsWith('/{id}') && schema) getsBySchema.set(withoutDescriptions(schema), op);
  }
  return {
    t,
    fixtures,
    operations,
    stats: { statuses: new Map(), details: new Map() },
    validatorFor(op, status) {
      const schema = op.responses[String(status)];
      if (schema === undefined) return undefined;
      const key = `${op.operationId} ${status}`;
      let validate = validators.get(key);
      if (!validate) {
        validate = ajv.compile(schema);
        validators.set(key, validate);
      }
      return validate;
    },
    readBackOf(op, status) {
      if (op.method === 'GET') return undefined;
      const schema = op.responses[String(status)];
      return schema === undefined ? undefined : getsBySchema.get(withoutDescriptions(schema));
    },
    countRows: await createRowCounter(t.database.db),
  };
}

/** `?expand[]=a&expand[]=b` for every expansion a GET declares: writes answer the expanded form. */
function expandAll(op: Operation): string {
  const expand = op.parameters.find((p) => p.in === 'query' && p.name === 'expand[]');
  const values = (expand?.schema.items?.enum ?? []) as string[];
  return values.length === 0 ? '' : `?${values.map((v) => `expand[]=${encodeURIComponent(v)}`).join('&')}`;
}

function send(target: FuzzTarget, request: FuzzRequest): Promise<LightMyRequestResponse> {
  return target.t.inject({
    method: request.method as NonNullable<InjectOptions['method']>,
    url: request.url,
    headers: request.headers,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
}

function rowsChanged(
  before: Record<string, number>,
  after: Record<string, number>,
  hasIdempotencyKey: boolean,
): string[] {
  const changed: string[] = [];
  for (const table of Object.keys(before)) {
    const delta = after[table]! - before[table]!;
    if (delta === 0) continue;
    if (table === IDEMPOTENCY_TABLE && hasIdempotencyKey && delta === 1) continue;
    changed.push(`${table} ${before[table]} -> ${after[table]}`);
  }
  return changed;
}

function checkProblem(request: FuzzRequest, response: LightMyRequestResponse): void {
  const fail = (why: string) => {
    throw new FuzzViolation(why, request, response);
  };
  if (response.headers['content-type'] !== PROBLEM_TYPE) fail(`a ${response.statusCode} is not ${PROBLEM_TYPE}`);
  let problem: Record<string, unknown>;
  try {
    problem = response.json();
  } catch {
    return fail('the problem body is not JSON');
  }
  const keys = Object.keys(problem).sort().join(',');
  if (keys !== 'code,detail,status,title,type' && keys !== 'code,detail,param,status,title,type')
    fail(`the problem has keys ${keys}, not type, title, status, detail, code and an optional param`);
  if (
    !(ALL_ERROR_CODES as unknown[]).includes(problem.code) ||
    ERROR_STATUS[problem.code as ErrorCode] !== response.statusCode
  )
    fail(`the problem code ${String(problem.code)} is not a documented code of a ${response.statusCode}`);
  if ('param' in problem && (typeof problem.param !== 'string' || problem.param === ''))
    fail('the problem param is not a field path');
  if (
    problem.type !== 'about:blank' ||
    problem.status !== response.statusCode ||
    problem.title !== STATUS_CODES[response.statusCode]
  )
    fail('the problem type, title or status is wrong');
  const detail = problem.detail;
  if (typeof detail !== 'string' || detail.trim().length < 8 || !/[.?!]$/.test(detail))
    fail('the problem detail is not a sentence saying what was wrong');
  if ((detail as string).startsWith('Internal server error') || detail === problem.title)
    fail('the problem detail is generic');
}

/** Sends the request and checks every property; throws FuzzViolation on the first broken one. */
export async function runCase(target: FuzzTarget, request: FuzzRequest, op: Operation): Promise<void> {
  const before = await target.countRows();
  const response = await send(target, request);
  const status = response.statusCode;
  const fail = (why: string): never => {
    throw new FuzzViolation(why, request, response);
  };
  target.stats.statuses.set(
    `${request.operationId} ${status}`,
    (target.stats.statuses.get(`${request.operationId} ${status}`) ?? 0) + 1,
  );

  if (status >= 500) fail(`a ${status}`);
  if (status < 200 || (status >= 300 && status < 400)) fail(`an unexpected status ${status}`);
  if (!response.headers['x-request-id']) fail('no x-request-id header');

  if (status >= 400) {
    checkProblem(request, response);
    const detail = response.json<{ detail: string }>().detail;
    target.stats.details.set(`${status} ${detail}`, (target.stats.details.get(`${status} ${detail}`) ?? 0) + 1);
    const changed = rowsChanged(before, await target.countRows(), request.headers['idempotency-key'] !== undefined);
    if (changed.length > 0) fail(`a ${status} changed the database: ${changed.join(', ')}`);
    return;
  }

  if (op.csvStatuses.includes(String(status))) {
    // An export (docs/exports.md): CSV text with a header row, the same bytes when asked again.
    if (response.headers['content-type'] !== CSV_TYPE) fail(`a ${status} is not ${CSV_TYPE}`);
    if (!/^\uFEFF?[a-z_]+(,[a-z0-9_-]+)*\r\n/.test(response.body)) fail('the CSV does not start with its header row');
    const again = await send(target, request);
    if (again.statusCode !== status || again.body !== response.body) {
      fail(`the next identical GET answered differently: ${again.statusCode} ${clip(again.body, 1000)}`);
    }
    return;
  }
  const fileType = op.fileStatuses[String(status)];
  if (fileType !== undefined) {
    // A document a buyer carries (docs/tickets.md): its declared type, and something in it.
    if (!String(response.headers['content-type']).startsWith(fileType)) fail(`a ${status} is not ${fileType}`);
    if (response.rawPayload.length === 0) fail(`the ${status} document is empty`);
    return;
  }
  if (response.headers['content-type'] !== JSON_TYPE) fail(`a ${status} is not ${JSON_TYPE}`);
  const validate = target.validatorFor(op, status);
  if (!validate) fail(`status ${status} is not documented for ${op.operationId}`);
  const body: unknown = response.json();
  if (!validate!(body))
    fail(`the ${status} body does not match its response schema: ${JSON.stringify(validate!.errors?.slice(0, 3))}`);
  if (op.method === 'POST') rememberCreated(target.fixtures, body);
  if (op.method === 'DELETE') forgetDeleted(target.fixtures, body);

  if (op.method === 'GET') {
    const again = await send(target, request);
    if (again.statusCode !== status || again.body !== response.body) {
      fail(`the next identical GET answered differently: ${again.statusCode} ${clip(again.body, 1000)}`);
    }
    return;
  }
  const readBack = target.readBackOf(op, status);
  if (readBack && response.headers['idempotent-replayed'] !== 'true') {
    const id = (body as { id: string }).id;
    const token = readBack.path.startsWith('/admin/') ? target.fixtures.adminToken : target.fixtures.org.key;
    // Some writes answer the plain form, others the expanded one (an order with its tickets).
    const plainUrl = readBack.path.replace('{id}', id);
    const urls = [plainUrl, ...(expandAll(readBack) ? [plainUrl + expandAll(readBack)] : [])];
    const reads = [];
    for (const url of urls) {
      const read = await target.t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      if (read.statusCode === 200 && read.body === response.body) return;
      reads.push(`GET ${url}: ${read.statusCode} ${clip(read.body, 1000)}`);
    }
    fail(`the next GET answered differently from the ${status}:\n  ${reads.join('\n  ')}`);
  }
}
