/**
 * The errors the domain (and the layers below it) throw: a code from the closed set,
 * the sentence for the caller and, for a field's fault, the field's path in `param`.
 * The HTTP layer maps the code to a status (src/http/errors.ts); nothing here knows HTTP.
 */
import type { CodeOf, ErrorCode } from './codes.ts';

/**
 * An answer, not a fault: it carries no stack trace, which every refusal would pay to
 * capture, and an on-sale refuses far more requests than it sells (bench/README.md).
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly param?: string;

  constructor(code: ErrorCode, detail: string, param?: string) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'DomainError';
    this.code = code;
    this.detail = detail;
    if (param !== undefined) this.param = param;
  }
}

/** A refused input: pick the code that says why, and name the field when there is one. */
export const invalid = (code: CodeOf<'invalid'>, detail: string, param?: string) =>
  new DomainError(code, detail, param);
/** A resource the caller cannot see: "<what> not found." */
export const notFound = (what: string) => new DomainError('resource_not_found', `${what} not found.`);
/** A request that clashes with the resource's state; `param` names the field that clashes, if one does. */
export const conflict = (code: CodeOf<'conflict'>, detail: string, param?: string) =>
  new DomainError(code, detail, param);
