/**
 * Requests for every operation of the OpenAPI document: valid ones built from the
 * operation's schemas, and mutated ones (see mutations.ts) in the body, the path id, the
 * query string (repeated, array-style and unknown parameters), the content type, the
 * credentials and the Idempotency-Key.
 */
import fc from 'fast-check';
import type { GenerationContext, JsonSchema } from './arbitraries.ts';
import { pickFrom, validValue } from './arbitraries.ts';
import type { Fixtures } from './fixtures.ts';
import {
  applyMutation,
  bodyMutation,
  encodeJson,
  HOSTILE_QUERY_VALUES,
  hostileValue,
  malformedIds,
  RAW_BODIES,
} from './mutations.ts';

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, such as `/v1/events/{id}`. */
  path: string;
  parameters: Parameter[];
  requestBody?: JsonSchema;
  /** Response schema by status code. */
  responses: Record<string, JsonSchema | undefined>;
  /** The status codes whose success body is CSV text (the exports), not JSON. */
  csvStatuses: string[];
  /** Statuses answered with a document of another type (a PDF, a calendar file, a pass): status → type. */
  fileStatuses: Record<string, string>;
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
      }
    >
  >;
}

/** The /v1 and /admin/v1 operations of the app's OpenAPI document. */
export function operationsOf(document: unknown): Operation[] {
  const operations: Operation[] = [];
  const resolved = dereference(document, document) as OpenApiDocument;
  for (const [path, methods] of Object.entries(resolved.paths)) {
    if (!path.startsWith('/v1/') && !path.startsWith('/admin/v1/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const responses: Record<string, JsonSchema | undefined> = {};
      const csvStatuses: string[] = [];
      const fileStatuses: Record<string, string> = {};
      for (const [status, response] of Object.entries(op.responses)) {
        responses[status] = response.content?.['application/json']?.schema ?? response.content?.['text/csv']?.schema;
        if (response.content?.['text/csv']) csvStatuses.push(status);
        const types = Object.keys(response.content ?? {});
        if (types.length > 0 && !types.includes('application/json') && !types.includes('text/csv'))
          fileStatuses[status] = types[0]!;
      }
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase() as HttpMethod,
        path,
        parameters: op.parameters ?? [],
        requestBody: op.requestBody?.content['application/json']?.schema,
        responses,
        csvStatuses,
        fileStatuses,
      });
    }
  }
  return operations;
}

/**
 * The document with every `#/components/schemas/…` reference replaced by the component
 * itself, so generation and validation see whole schemas (the components have no cycles).
 */
function dereference(value: unknown, document: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => dereference(item, document));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const schemas = (document as { components: { schemas: Record<string, unknown> } }).components.schemas;
    return dereference(schemas[ref.slice('#/components/schemas/'.length)], document);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, dereference(item, document)]));
}

export interface FuzzRequest {
  operationId: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** How the request departs from a valid one (empty: built valid from the schemas). */
  mutations: string[];
}

/** Which fixture pool a field or parameter name draws its ids from. */
const ID_POOLS: Record<string, string> = {
  performance_id: 'performances',
  ticket_type_id: 'ticket_types',
  event_id: 'events',
  order_id: 'orders',
  ticket_ids: 'tickets',
  organizer_id: 'organizers',
  id: 'venues',
  starting_after: '*',
};

export function generationContext(fixtures: Fixtures, now: Date): GenerationContext {
  return {
    now,
    idsFor: (name) => {
      const pool = name === undefined ? undefined : ID_POOLS[name];
      return pool === undefined || pool === '*' ? allIds(fixtures) : (fixtures.ids[pool] ?? allIds(fixtures));
    },
    valuesFor: (name) => (name === undefined ? [] : (fixtures.values[name] ?? [])),
  };
}

/** The fixture pool of a path's `{id}`: the segment before it (`/v1/orders/{id}/...` -> orders). */
function poolOfPath(path: string): string {
  const segments = path.split('/');
  return segments[segments.indexOf('{id}') - 1] ?? 'events';
}

const allIds = (fixtures: Fixtures) => Object.values(fixtures.ids).flat();

function pathId(fixtures: Fixtures, path: string): fc.Arbitrary<{ id: string; note?: string }> {
  const own = () => fixtures.ids[poolOfPath(path)] ?? [];
  const all = () => allIds(fixtures);
  return fc.oneof(
    { weight: 12, arbitrary: pickFrom(own).map((id) => ({ id })) },
    { weight: 1, arbitrary: pickFrom(own).map((id) => ({ id: id.toUpperCase(), note: 'uppercase id' })) },
    { weight: 1, arbitrary: pickFrom(all).map((id) => ({ id, note: 'id of another resource' })) },
    { weight: 1, arbitrary: fc.uuid().map((id) => ({ id, note: 'unknown id' })) },
    {
      weight: 2,
      arbitrary: fc.tuple(pickFrom(all), fc.nat()).map(([real, n]) => {
        const forms = malformedIds(real);
        const id = forms[n % forms.length]!;
        return { id, note: `malformed id ${id.slice(0, 60)}` };
      }),
    },
  );
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** One `name=value` pair of the query string, valid or hostile, as sent on the wire. */
function queryPairs(param: Parameter, ctx: GenerationContext): fc.Arbitrary<{ pairs: string[]; note?: string }> {
  const name = param.name;
  const plain = name.endsWith('[]') ? name.slice(0, -2) : name;
  const valid = validValue(param.schema, ctx, plain).map((v) => (Array.isArray(v) ? v.map(text) : [text(v)]));
  const encode = (key: string, values: string[]) =>
    values.map((v) => `${encodeURIComponent(key)}=${encodeURIComponent(v)}`);
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((values) => ({ pairs: encode(name, values) })) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...HOSTILE_QUERY_VALUES)
        .map((v) => ({ pairs: [`${encodeURIComponent(name)}=${v}`], note: `query ${name}=${v.slice(0, 40)}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, valid)
        .map(([a, b]) => ({ pairs: encode(plain, [...a, ...b]), note: `repeated ${plain}` })),
    },
    {
      weight: 1,
      arbitrary: valid.map((values) => ({ pairs: encode(`${plain}[]`, values), note: `array-style ${plain}[]` })),
    },
    {
      weight: 1,
      arbitrary: fc.constant(null).map(() => ({ pairs: [encodeURIComponent(name)], note: `${name} without a value` })),
    },
  );
}

function queryString(op: Operation, ctx: GenerationContext): fc.Arbitrary<{ query: string; notes: string[] }> {
  const params = op.parameters.filter((p) => p.in === 'query');
  const each = params.map((p) => fc.option(queryPairs(p, ctx), { freq: 2 }));
  const extra = fc.option(
    fc.constantFrom(
      'unknown=1',
      '__proto__=x',
      'constructor[prototype]=1',
      'limit=1&limit=2',
      'expand[]=items&expand[]=nope',
      'a[b][c]=d',
      '&&',
      '=',
    ),
    { freq: 6 },
  );
  return fc.tuple(fc.tuple(...each), extra).map(([chosen, extraPair]) => {
    const pairs: string[] = [];
    const notes: string[] = [];
    for (const c of chosen) {
      if (c === null) continue;
      pairs.push(...c.pairs);
      if (c.note) notes.push(c.note);
    }
    if (extraPair !== null) {
      pairs.push(extraPair);
      notes.push(`extra query ${extraPair}`);
    }
    return { query: pairs.length > 0 ? `?${pairs.join('&')}` : '', notes };
  });
}

interface BodyChoice {
  payload?: string | Buffer;
  note?: string;
}

function body(op: Operation, ctx: GenerationContext): fc.Arbitrary<BodyChoice> {
  const raw = fc
    .constantFrom(...RAW_BODIES)
    .map((payload) => ({ payload, note: `raw body ${String(payload).slice(0, 40)}` }));
  if (op.requestBody === undefined) {
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: hostileValue().map((v) => ({ payload: encodeJson(v), note: 'body on a body-less operation' })),
      },
      { weight: 1, arbitrary: raw },
    );
  }
  const valid = validValue(op.requestBody, ctx);
  return fc.oneof(
    { weight: 5, arbitrary: valid.map((v) => ({ payload: encodeJson(v) })) },
    {
      weight: 5,
      arbitrary: fc.tuple(valid, bodyMutation).map(([v, m]) => {
        const mutated = applyMutation(v, m);
        return {
          payload: mutated === undefined ? undefined : encodeJson(mutated),
          note: `body ${m.kind}${'with' in m ? ` ${encodeJson(m.with).slice(0, 40)}` : ''}${'key' in m ? ` key ${JSON.stringify(m.key)}` : ''}${'depth' in m ? ` depth ${m.depth}` : ''}`,
        };
      }),
    },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant({ note: 'no body' }) },
  );
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/problem+json',
  'application/merge-patch+json',
  'application/xml',
  '',
  'application/json, text/plain',
  '*/*',
];

interface Credentials {
  organizerKey: string;
  readKey: string;
  adminToken: string;
}

function authorization(op: Operation, credentials: Credentials): fc.Arbitrary<{ value?: string; note?: string }> {
  const own = op.path.startsWith('/admin/') ? credentials.adminToken : credentials.organizerKey;
  const other = op.path.startsWith('/admin/') ? credentials.organizerKey : credentials.adminToken;
  return fc.oneof(
    { weight: 30, arbitrary: fc.constant({ value: `Bearer ${own}` }) },
    { weight: 1, arbitrary: fc.constant({ note: 'no credentials' }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          `Bearer ${other}`,
          `Bearer ${credentials.readKey}`,
          'Bearer wrong',
          `Basic ${own}`,
          `bearer ${own}`,
          `Bearer  ${own}`,
          'Bearer',
          `Bearer ${own}x`,
        )
        .map((value) => ({ value, note: `authorization ${value.slice(0, 20)}` })),
    },
  );
}

const IDEMPOTENCY_KEYS = [
  'fuzz-1',
  'fuzz-2',
  'x'.repeat(255),
  'x'.repeat(256),
  '',
  ' ',
  'ключ'.normalize(),
  'caf\u00e9',
  'a\tb',
];

function idempotencyKey(op: Operation): fc.Arbitrary<{ value?: string; note?: string }> {
  const declared = op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  return fc.oneof(
    { weight: declared ? 4 : 12, arbitrary: fc.constant({}) },
    { weight: 2, arbitrary: fc.uuid().map((value) => ({ value, note: 'fresh Idempotency-Key' })) },
    // Latin-1 only: header values are bytes, and inject() refuses code points above U+00FF.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...IDEMPOTENCY_KEYS.filter((k) => [...k].every((c) => c.codePointAt(0)! <= 0xff)))
        .map((value) => ({ value, note: `Idempotency-Key ${JSON.stringify(value.slice(0, 20))}` })),
    },
  );
}

/** Requests of one operation. */
export function requestsFor(
  op: Operation,
  ctx: GenerationContext,
  fixtures: Fixtures,
  credentials: Credentials,
): fc.Arbitrary<FuzzRequest> {
  const id = op.path.includes('{id}') ? pathId(fixtures, op.path) : fc.constant(undefined);
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  );
  return fc
    .record({
      id,
      query: queryString(op, ctx),
      body: body(op, ctx),
      contentType,
      auth: authorization(op, credentials),
      idempotency: idempotencyKey(op),
    })
    .map(({ id: pathParam, query, body: chosen, contentType: type, auth, idempotency }) => {
      const mutations = [...query.notes];
      if (pathParam?.note) mutations.push(pathParam.note);
      if (chosen.note) mutations.push(chosen.note);
      if (auth.note) mutations.push(auth.note);
      if (idempotency.note) mutations.push(idempotency.note);
      const headers: Record<string, string> = {};
      if (auth.value !== undefined) headers.authorization = auth.value;
      if (idempotency.value !== undefined) headers['idempotency-key'] = idempotency.value;
      if (chosen.payload !== undefined || type !== undefined) {
        headers['content-type'] = type ?? 'application/json';
        if (type !== undefined) mutations.push(`content-type ${JSON.stringify(type)}`);
      }
      const path = pathParam === undefined ? op.path : op.path.replace('{id}', pathParam.id);
      return {
        operationId: op.operationId,
        method: op.method,
        url: path + query.query,
        headers,
        ...(chosen.payload === undefined ? {} : { payload: chosen.payload }),
        mutations,
      };
    });
}
