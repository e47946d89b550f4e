/**
 * Sends one webhook HTTP request and reports what happened. Knows nothing of
 * deliveries, retries or signatures: the caller passes ready-made headers.
 *
 * SSRF defences, in order:
 * 1. The URL is vetted again before every send (the endpoint's DNS may have
 *    changed since it was saved). The DNS answer for this step may be up to
 *    `dnsCacheMs` old (a few seconds, per hostname); the vetting itself runs
 *    every time.
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
import { Agent, request } from 'undici';
import { cachingResolver, resolveVettedAddresses, vetWebhookUrl, type ResolvedAddress, type VettingOptions } from './url-vetting.ts';

export interface SendResult {
  /** A 2xx response: the receiver acknowledged the delivery. */
  ok: boolean;
  status: number | null;
  responseMs: number;
  error: string | null;
  /** The receiver answered 410 Gone: the endpoint should be disabled. */
  gone: boolean;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookSenderOptions extends VettingOptions {
  /** One deadline for the whole attempt: DNS, connect, TLS, response headers and body. */
  timeoutMs: number;
  /** Trusted CAs replacing the default roots (tests use a self-signed receiver). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** How much of a response body is read before the connection is dropped. */
  maxResponseBytes?: number;
  /** How long the pre-send vetting may reuse a hostname's DNS answer (default 5 s; 0: never). */
  dnsCacheMs?: number;
}

export interface WebhookSender {
  send(req: WebhookRequest): Promise<SendResult>;
  /** Waits for in-flight sends, then closes pooled connections. */
  close(): Promise<void>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 4096;
export const DEFAULT_DNS_CACHE_MS = 5000;
const UNDICI_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  // The socket lookup (new connections) resolves afresh; the pre-send vetting may reuse
  // a recent answer, since it only decides whether to try (the socket lookup decides
  // where the connection goes).
  const connectVetting: VettingOptions = { allowLoopback: opts.allowLoopback, resolver: opts.resolver };
  const vetting: VettingOptions = {
    allowLoopback: opts.allowLoopback,
    resolver: cachingResolver(opts.resolver, opts.dnsCacheMs ?? DEFAULT_DNS_CACHE_MS),
  };
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const agent = new Agent({
    connect: {
      lookup: vettedLookup(connectVetting),
      timeout: opts.timeoutMs,
      ...(opts.ca === undefined ? {} : { ca: opts.ca }),
    },
    // Backstops only: the AbortController deadline in send() is the real limit.
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });

  async function send(req: WebhookRequest): Promise<SendResult> {
    const startedAt = performance.now();
    const elapsedMs = () => Math.round(performance.now() - startedAt);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
    let status: number | null = null;
    try {
      const url = await untilAborted(vetWebhookUrl(req.url, vetting), deadline.signal);
      const response = await request(url, {
        dispatcher: agent,
        method: 'POST',
        headers: { ...withoutContentType(req.headers), 'content-type': 'application/json' },
        body: req.body,
        signal: deadline.signal,
      });
      status = response.statusCode;
      // Read (and discard) only a bounded prefix: a small body is drained so
      // the connection can be reused, a large one gets the connection closed.
      // A body cut off by the receiver does not undo its acknowledgement;
      // one still arriving at the deadline rejects here and is a timeout.
      await response.body.dump({ limit: maxResponseBytes, signal: deadline.signal });
      return { ...statusOutcome(status), status, responseMs: elapsedMs() };
    } catch (err) {
      const error = deadline.signal.aborted || isUndiciTimeout(err) ? `timeout after ${opts.timeoutMs}ms` : describeError(err);
      return { ok: false, status, responseMs: elapsedMs(), error, gone: false };
    } finally {
      clearTimeout(timer);
    }
  }

  return { send, close: () => agent.close() };
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
          callback(null, usable[0].address, usable[0].family);
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
  if (status >= 300 && status <= 399) return { ok: false, error: `HTTP ${status}: redirects are not followed`, gone: false };
  return { ok: false, error: `HTTP ${status}`, gone: status === 410 };
}

/** The caller's headers minus any content-type: the body is always JSON. */
function withoutContentType(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
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
