/**
 * Request validation. Bodies are validated as sent: no type coercion ("5" is not 5)
 * and no silent removal of unknown keys, so strict bodies answer 400 naming the key.
 * Query strings and path parameters arrive as text, so they are coerced, and
 * `expand[]=a` style arrays are accepted.
 *
 * Two formats are stricter than ajv-formats' (docs/validation.md): `uuid` is only the
 * canonical 8-4-4-4-12 hex form (no `urn:uuid:` prefix, no braces), and `date-time` is a
 * calendar-correct RFC 3339 instant in the range both engines store exactly. The
 * `x-lowercase` keyword lowercases an accepted value in place, so ids are compared in
 * one case from the edge on.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isAcceptedTimestamp } from '../lib/timestamps.ts';
import type { CompileWhen } from './serialization.ts';

// ajv-formats is CommonJS; its default export sits one level down under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

const CANONICAL_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Schema keyword: lowercase the (already valid) string in place. */
export const LOWERCASE_KEYWORD = 'x-lowercase';

/** ajv-formats' formats with the API's stricter `uuid` and `date-time` (also used by the request fuzzer). */
export function addApiFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('uuid', CANONICAL_UUID);
  ajv.addFormat('date-time', { type: 'string', validate: isAcceptedTimestamp });
  return ajv;
}

function makeAjv(options: Options): Ajv {
  const ajv = addApiFormats(new Ajv({ ...shared, ...options }));
  ajv.addKeyword({
    keyword: LOWERCASE_KEYWORD,
    type: 'string',
    modifying: true,
    errors: false,
    validate(
      enabled: boolean,
      data: string,
      _schema: unknown,
      where?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
    ) {
      if (enabled && where?.parentData !== undefined) where.parentData[where.parentDataProperty] = data.toLowerCase();
      return true;
    },
  });
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

/**
 * Makes the components (schemas with an `$id`) resolvable by `$ref` in request schemas.
 * The validators are shared by every app of the process, so a component already known
 * is left as it is.
 */
export function addComponentSchemas(schemas: readonly { $id: string }[]): void {
  for (const ajv of [bodyAjv, textAjv]) {
    for (const schema of schemas) if (ajv.getSchema(schema.$id) === undefined) ajv.addSchema(schema);
  }
}

/**
 * A validator compiled when it first validates, not when its route is added (as the
 * response serializers, ./serialization.ts): ajv generates and compiles code for every
 * schema. It answers as the ajv function it wraps: `errors` after each call, and the
 * `schemaEnv` Fastify looks for before it passes the parent object (so ajv may replace a
 * coerced root value).
 */
function validateOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validator = ((data: unknown, dataCxt?: Parameters<ValidateFunction>[1]) => {
    compiled ??= compile();
    const valid = compiled(data, dataCxt);
    validator.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  Object.defineProperty(validator, 'schemaEnv', { get: () => (compiled ??= compile()).schemaEnv });
  return validator;
}

/** Fastify's validator compiler: bodies as sent, text parts coerced (above). */
export function validatorCompilerFor(when: CompileWhen): FastifySchemaCompiler<object> {
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return when === 'route-added' ? ajv.compile(schema) : validateOnFirstUse(() => ajv.compile(schema));
  };
}
