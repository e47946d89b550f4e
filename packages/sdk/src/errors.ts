/** What the client throws: an answer the API refused, or no answer at all. */

/** The problem+json body of every error the API answers (docs/errors.md in the service). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  param?: string;
  [member: string]: unknown;
}

/** The base class of every error this client throws. */
export class MarqueeError extends Error {
  override name = 'MarqueeError';
}

/** The API answered with an error status; its problem body is here, field by field. */
export class MarqueeApiError extends MarqueeError {
  override name = 'MarqueeApiError';
  /** The HTTP status, e.g. 400, 404, 409, 429, 503. */
  readonly status: number;
  /** The stable machine-readable code, e.g. `parameter_invalid`, `resource_not_found`. */
  readonly code: string;
  /** The offending field as a dotted path (`items.0.quantity`), when there is one. */
  readonly param: string | undefined;
  /** What went wrong, in words a person can act on. */
  readonly detail: string;
  readonly title: string;
  /** The `x-request-id` of the answer: quote it to support. */
  readonly requestId: string | undefined;
  /** The whole problem body. */
  readonly problem: Problem;
  /**
   * The answer's `retry-after` in milliseconds (a 429 or a 503 has one), capped at a
   * minute: when a caller that handles the refusal itself may try again.
   */
  readonly retryAfterMs: number | undefined;

  constructor(problem: Problem, requestId: string | undefined, retryAfterMs?: number) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.param = problem.param;
    this.detail = problem.detail;
    this.title = problem.title;
    this.requestId = requestId;
    this.problem = problem;
    this.retryAfterMs = retryAfterMs;
  }
}

/** No answer: the connection failed or timed out, after the retries allowed. */
export class MarqueeConnectionError extends MarqueeError {
  override name = 'MarqueeConnectionError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
