/**
 * Sends one webhook HTTP request and reports what happened. Knows nothing of
 * deliveries, retries or signatures: the caller passes ready-made headers.
 *
 * SSRF defences, in order:
 * 1. The URL is vetted again before sending (the endpoint's DNS may have
 *    changed since it was saved). A passing verdict, with the DNS answer it
 *    rests on, is reused for `dnsCacheMs` (a few seconds) per URL.
 * 2. The socket's own DNS lookup goes through the same resolver and vets
 *    every address again, so a rebinding answer between (1) and the connect
 *    is refused, and the socket only ever connects to a vetted address. This
 *    lookup is never cached. The hostname stays in the URL, so SNI and
 *    certificate checks still use it. Connections are kept alive and reused
 *    per origin, so most sends need no lookup or handshake at all.
 * 3. A private undici Agent is used instead of the global dispatcher, so
 *    HTTP(S)_PROXY settings cannot route deliveries elsewhere, and no redirect
 *    interceptor is composed, so a 3xx is returned to us, never followed.
 */
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import type { AttemptResponseCopy } from '../db/schema.ts';
import { resolveVettedAddresses, vettedUrlCache, type ResolvedAddress, type VettingOptions } from './url-vetting.ts';

export interface SendResult {
  /** A 2xx response: the receiver acknowledged the delivery. */
  ok: boolean;
  status: number | null;
  responseMs: number;
  error: string | null;
  /** The receiver answered 410 Gone: the endpoint should be disabled. */
  gone: boolean;
  /** What the delivery log keeps of the response; null when no response arrived. */
  response: AttemptResponseCopy | null;
}

interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface WebhookSenderOptions extends VettingOptions {
  /** One deadline for the whole attempt: DNS, connect, TLS, response headers and body. */
  timeoutMs: number;
  /** Trusted CAs replacing the default roots (tests use a self-signed receiver). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** How much of a response body is read before the connection is dropped. */
  maxResponseBytes?: number;
  /** How much of the body the response copy keeps (default 1 KB; at most maxResponseBytes). */
  keptBodyBytes?: number;
  /** How long the pre-send vetting may reuse a hostname's DNS answer (default 5 s; 0: never). */
  dnsCacheMs?: number;
}

export interface WebhookSender {
  send(req: WebhookRequest): Promise<SendResult>;
  /** Waits for in-flight sends, then closes pooled connections. */
  close(): Promise<void>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const DEFAULT_KEPT_BODY_BYTES = 1024;
/**
 * The response headers the delivery log keeps (docs/webhooks.md, "The delivery log"):
 * what says what the body is, why a redirect or a 429/503 happened, and who answered.
 */
const KEPT_HEADERS = ['content-type', 'content-length', 'location', 'retry-after', 'date', 'server'] as const;
/** A kept header value is cut to this many characters. */
const KEPT_HEADER_CHARS = 256;
const DEFAULT_DNS_CACHE_MS = 5000;
const UNDICI_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  // The socket lookup (new connections) resolves afresh; the pre-send vetting may reuse
  // a recent verdict, since it only decides whether to try (the socket lookup decides
  // where the connection goes).
  const vetting: VettingOptions = {
    allowLoopback: opts.allowLoopback,
    allowInsecureLoopback: opts.allowInsecureLoopback ?? false,
    resolver: opts.resolver,
  };
  const vetted = vettedUrlCache(vetting, opts.dnsCacheMs ?? DEFAULT_DNS_CACHE_MS);
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const agent = new Agent({
    connect: {
      lookup: vettedLookup(vetting),
      timeout: opts.timeoutMs,
      ...(opts.ca === undefined ? {} : { ca: opts.ca }),
    },
    // Backstops only: the deadline in send() is the real limit.
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });

  const limits: AttemptLimits = {
    timeoutMs: opts.timeoutMs,
    timeoutMessage: `timeout after ${opts.timeoutMs}ms`,
    maxResponseBytes,
    keptBodyBytes: Math.min(opts.keptBodyBytes ?? DEFAULT_KEPT_BODY_BYTES, maxResponseBytes),
  };

  function send(req: WebhookRequest): Promise<SendResult> {
    return new Promise<SendResult>((resolve) => {
      const attempt = new Attempt(limits, resolve);
      const url = vetted(req.url);
      if (url instanceof URL) attempt.dispatch(agent, url, req);
      else
        url.then(
          (vettedUrl) => attempt.dispatch(agent, vettedUrl, req),
          (err: unknown) => attempt.fail(describeError(err)),
        );
    });
  }

  return { send, close: () => agent.close() };
}

interface AttemptLimits {
  timeoutMs: number;
  timeoutMessage: string;
  maxResponseBytes: number;
  keptBodyBytes: number;
}

/**
 * One send: undici's dispatch handler (the dispatcher API rather than request(): the
 * response needs no stream, only its status and a bounded count of body bytes) and the
 * attempt's single deadline, covering vetting (DNS), connect, TLS, headers and body.
 * A class, so a send allocates one object rather than a closure per callback.
 */
class Attempt implements Dispatcher.DispatchHandler {
  private readonly startedAt = performance.now();
  private readonly timer: NodeJS.Timeout;
  private status: number | null = null;
  private headers: Record<string, string> | null = null;
  /** The body's first keptBodyBytes bytes, allocated at the first chunk. */
  private kept: Buffer | null = null;
  private received = 0;
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;

  constructor(
    private readonly limits: AttemptLimits,
    private readonly resolve: (result: SendResult) => void,
  ) {
    this.timer = setTimeout(onDeadline, limits.timeoutMs, this);
  }

  /** Sends `req` to its vetted URL, unless the deadline came first. */
  dispatch(agent: Agent, url: URL, req: WebhookRequest): void {
    if (this.settled) return;
    const headers = withJsonContentType(req.headers);
    agent.dispatch(
      { origin: url.origin, path: url.pathname + url.search, method: 'POST', headers, body: req.body },
      this,
    );
  }

  deadline(): void {
    this.fail(this.limits.timeoutMessage);
    this.controller?.abort(new Error(this.limits.timeoutMessage));
  }

  fail(error: string): void {
    this.finish({ ok: false, status: this.status, error, gone: false, response: this.responseCopy() });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(new Error(this.limits.timeoutMessage));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHeaders): void {
    this.status = statusCode;
    this.headers = keptHeaders(headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Read (and discard) only a bounded prefix: a small body is drained so the
    // connection can be reused, a large one gets the connection closed. A body cut off
    // this way does not undo the acknowledgement; one still arriving at the deadline is
    // a timeout. The first keptBodyBytes are copied for the delivery log.
    const keep = this.limits.keptBodyBytes - this.received;
    if (keep > 0) {
      this.kept ??= Buffer.allocUnsafe(this.limits.keptBodyBytes);
      chunk.copy(this.kept, this.received, 0, Math.min(keep, chunk.length));
    }
    this.received += chunk.length;
    if (this.received > this.limits.maxResponseBytes) {
      this.answered();
      controller.abort(new Error('response body over the read limit'));
    }
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.fail(isUndiciTimeout(err) ? this.limits.timeoutMessage : describeError(err));
  }

  private answered(): void {
    this.finish({ ...statusOutcome(this.status!), status: this.status, response: this.responseCopy() });
  }

  /** The bounded copy of the response, or null when none arrived. */
  private responseCopy(): AttemptResponseCopy | null {
    if (this.status === null) return null;
    const keptBytes = Math.min(this.received, this.limits.keptBodyBytes);
    const truncated = this.received > keptBytes;
    return {
      headers: this.headers ?? {},
      body: this.kept === null ? '' : decodeKeptBody(this.kept.subarray(0, keptBytes), truncated),
      body_truncated: truncated,
    };
  }

  private finish(outcome: Omit<SendResult, 'responseMs'>): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve({ ...outcome, responseMs: Math.round(performance.now() - this.startedAt) });
  }
}

function onDeadline(attempt: Attempt): void {
  attempt.deadline();
}

type IncomingHeaders = Record<string, string | string[] | undefined>;

/**
 * The allow-listed headers of a response, each value cut to a bound. undici hands the
 * headers over with lower-case names.
 */
function keptHeaders(headers: IncomingHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = text.length > KEPT_HEADER_CHARS ? text.slice(0, KEPT_HEADER_CHARS) : text;
  }
  return out;
}

/**
 * The kept bytes as text: UTF-8, an invalid byte (a binary body) shown as U+FFFD, and,
 * when the body was cut, a character split by the cut dropped (a streaming decode holds
 * it back). NUL becomes U+FFFD too: PostgreSQL's jsonb cannot hold it.
 */
function decodeKeptBody(bytes: Buffer, cut: boolean): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes, { stream: cut }).replaceAll('\u0000', '\uFFFD');
}

/**
 * A socket lookup that resolves through the injected resolver and refuses
 * unless every address is allowed. Node calls it in two shapes: with
 * `options.all` (happy eyeballs, Node 20's default) the callback takes the
 * address list; otherwise it takes a single address and its family.
 */
function vettedLookup(vetting: VettingOptions): LookupFunction {
  return (hostname, options, callback) => {
    resolveVettedAddresses(hostname, vetting).then(
      (addresses) => {
        const usable = ofFamily(addresses, options.family);
        if (usable.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`Webhook URL host ${hostname} has no usable address.`);
          err.code = 'ENOTFOUND';
          callback(err, '');
        } else if (options.all) {
          callback(null, usable);
        } else {
          const [first] = usable as [ResolvedAddress, ...ResolvedAddress[]];
          callback(null, first.address, first.family);
        }
      },
      (err: Error) => callback(err, ''),
    );
  };
}

function ofFamily(addresses: ResolvedAddress[], family: number | 'IPv4' | 'IPv6' | undefined): ResolvedAddress[] {
  const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : null;
  return wanted === null ? addresses : addresses.filter((a) => a.family === wanted);
}

function statusOutcome(status: number): Pick<SendResult, 'ok' | 'error' | 'gone'> {
  if (status >= 200 && status <= 299) return { ok: true, error: null, gone: false };
  if (status >= 300 && status <= 399)
    return { ok: false, error: `HTTP ${status}: redirects are not followed`, gone: false };
  return { ok: false, error: `HTTP ${status}`, gone: status === 410 };
}

/** The caller's headers with `content-type: application/json` (the body is always JSON). */
function withJsonContentType(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) if (name.toLowerCase() !== 'content-type') out[name] = headers[name]!;
  out['content-type'] = 'application/json';
  return out;
}

function isUndiciTimeout(err: unknown): boolean {
  return err instanceof Error && UNDICI_TIMEOUT_CODES.has((err as NodeJS.ErrnoException).code ?? '');
}

/**
 * A message for the delivery log, e.g. `connect ECONNREFUSED 127.0.0.1:443`
 * or `self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`.
 */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}
