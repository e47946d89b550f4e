/**
 * The errors the domain (and the layers below it) throw: a code from the closed set,
 * the sentence for the caller and, for a field's fault, the field's path in `param`.
 * The HTTP layer maps the code to a status (src/http/errors.ts); nothing here knows HTTP.
 */
import type { CodeOf, ErrorCode } from './codes.ts';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly param?: string,
  ) {
    super(detail);
    this.name = 'DomainError';
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
