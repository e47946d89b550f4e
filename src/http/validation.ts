/**
 * Request validation. Bodies are validated as sent: no type coercion ("5" is not 5)
 * and no silent removal of unknown keys, so strict bodies answer 400 naming the key.
 * Query strings and path parameters arrive as text, so they are coerced, and
 * `expand[]=a` style arrays are accepted.
 */
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export sits one level down under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...shared, ...options });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
