/**
 * Response serialization: fast-json-stringify, as Fastify's default compiler uses it,
 * with three differences that only make the start cheaper (docs/architecture.md,
 * "Start-up"):
 *
 * - A serializer is compiled when it first serializes, not when its route is added:
 *   fast-json-stringify generates and compiles code for every schema, and most of a
 *   route's responses (its error statuses) are never sent in a process's first seconds.
 * - Each response schema is compiled with only the components it refers to (by `$ref`,
 *   followed transitively), not with every component: fast-json-stringify checks and
 *   indexes each external schema it is given on every compilation, and every route has
 *   several responses.
 * - Identical response schemas share one serializer: most routes answer the same
 *   problem+json schema for each of their error statuses.
 *
 * The generated serializers are the ones the default compiler would make: the same
 * schema, the same options, and every schema its `$ref`s reach.
 */
import fastJsonStringify, { type Options, type Schema as JsonSchema } from 'fast-json-stringify';

type Schema = Record<string, unknown>;
type Serializer = (data: unknown) => string;

/** The `$ref` targets in `schema` (the part before `#`, when there is one). */
function refsOf(schema: unknown, into: Set<string>): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const item of schema) refsOf(item, into);
    return;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      const id = value.split('#')[0]!;
      if (id !== '') into.add(id);
    } else refsOf(value, into);
  }
}

/**
 * The external schemas `schema` reaches through `$ref`s, or all of them when a reference
 * is not to an external schema's id (a relative or unusual one): then fast-json-stringify
 * resolves it as it would by default.
 */
function reachedSchemas(schema: Schema, external: Readonly<Record<string, Schema>>): Record<string, Schema> {
  const reached: Record<string, Schema> = {};
  const pending = new Set<string>();
  refsOf(schema, pending);
  for (const id of pending) {
    const target = external[id];
    if (target === undefined) {
      if (id === schema.$id) continue;
      return { ...external };
    }
    if (id in reached) continue;
    reached[id] = target;
    refsOf(target, pending);
  }
  return reached;
}

/** When a route's serializers are compiled: at first use (the default) or when the route is added. */
export type CompileWhen = 'first-use' | 'route-added';

/**
 * A `compilersFactory.buildSerializer` for Fastify's `schemaController` option: called
 * with the external schemas (those added by `addSchema`) and `serializerOpts`.
 */
export function serializerFactory(when: CompileWhen) {
  return (externalSchemas?: unknown, serializerOpts?: Options): ((route: { schema?: unknown }) => Serializer) => {
    const external = (externalSchemas ?? {}) as Readonly<Record<string, Schema>>;
    const compiled = new Map<string, Serializer>();
    const compile = (schema: Schema): Serializer => {
      const key = JSON.stringify(schema);
      let serializer = compiled.get(key);
      if (serializer === undefined) {
        const schemas = reachedSchemas(schema, external);
        // As the default compiler does: a response schema that is itself a registered
        // component is not also passed as an external one.
        if (typeof schema.$id === 'string') delete schemas[schema.$id];
        serializer = fastJsonStringify(schema as unknown as JsonSchema, {
          ...serializerOpts,
          schema: schemas as unknown as Record<string, JsonSchema>,
        });
        compiled.set(key, serializer);
      }
      return serializer;
    };
    return (route) => {
      const schema = route.schema as Schema;
      if (when === 'route-added') return compile(schema);
      let serializer: Serializer | undefined;
      return (data) => (serializer ??= compile(schema))(data);
    };
  };
}
