/**
 * Webhook URL vetting: decides whether the service may send a request to a
 * URL an organizer gave us. Runs at endpoint create, at PATCH and before
 * every send, and (through `resolveVettedAddresses`) inside the sender's
 * socket lookup, so the address actually connected to is the one vetted.
 *
 * The point is SSRF protection: a webhook URL must never let an API user make
 * the service talk to its own loopback, the private network, or a cloud
 * metadata endpoint (169.254.169.254, fd00:ec2::254, 100.100.100.200 ...).
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (getaddrinfo), every address, in the order it returned them. */
export const systemResolver: Resolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export class UrlVettingError extends Error {
  override name = 'UrlVettingError';
}

export interface VettingOptions {
  /** Lets 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104 pass, for local development and tests. */
  allowLoopback: boolean;
  /** Also lets plain http:// through when every address of the host is loopback (development only). */
  allowInsecureLoopback?: boolean;
  resolver: Resolver;
}

const MAX_WEBHOOK_URL_LENGTH = 2048;

type AddressVerdict = { ok: true } | { ok: false; range: string };

const ALLOWED: AddressVerdict = { ok: true };

// IANA's IPv6 global unicast space. Everything outside it (IPv4-compatible
// ::/96, discard 100::/64, site-local fec0::/10, segment routing 5f00::/16 ...)
// is not a public destination, whatever ipaddr.js happens to call it.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
// The well-known NAT64 prefix (RFC 6052): a NAT64 gateway forwards to the
// IPv4 address in the last 32 bits, so that address is what must be public.
// The local-use prefix 64:ff9b:1::/48 (RFC 8215) is not matched here and is
// rejected by range() below: its translation is site-specific.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Whether a connection to `address` is allowed: only public unicast passes.
 * On refusal, `range` names the range that matched, using ipaddr.js names
 * (`private`, `loopback`, `linkLocal`, ...); IPv6 forms that embed an IPv4
 * address are judged by that address and reported as `<form>:<range>`, e.g.
 * `ipv4Mapped:private` or `nat64:loopback`.
 */
export function isAddressAllowed(address: string, opts: { allowLoopback: boolean }): AddressVerdict {
  // An address always means the same thing: remember verdicts (the sender vets at every send).
  const memo = opts.allowLoopback ? verdictsWithLoopback : verdicts;
  let verdict = memo.get(address);
  if (verdict === undefined) {
    verdict = judgeAddress(address, opts.allowLoopback);
    if (memo.size >= MAX_REMEMBERED_VERDICTS) memo.clear();
    memo.set(address, verdict);
  }
  return verdict;
}

const MAX_REMEMBERED_VERDICTS = 10_000;
const verdicts = new Map<string, AddressVerdict>();
const verdictsWithLoopback = new Map<string, AddressVerdict>();

function judgeAddress(address: string, allowLoopback: boolean): AddressVerdict {
  if (!ipaddr.isValid(address)) return { ok: false, range: 'invalid' };
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv4'
    ? judgeIPv4(ip as ipaddr.IPv4, allowLoopback)
    : judgeIPv6(ip as ipaddr.IPv6, allowLoopback);
}

function judgeIPv4(ip: ipaddr.IPv4, allowLoopback: boolean): AddressVerdict {
  // ipaddr.js's table covers 0/8, 10/8, 100.64/10, 127/8, 169.254/16,
  // 172.16/12, 192.0.0/24, 192.0.2/24, 192.168/16, 198.18/15, 198.51.100/24,
  // 203.0.113/24, 224/4, 240/4 and 255.255.255.255, plus AS112 and AMT anycast.
  const range = ip.range();
  if (range === 'unicast') return ALLOWED;
  if (range === 'loopback' && allowLoopback) return ALLOWED;
  return { ok: false, range };
}

function judgeIPv6(ip: ipaddr.IPv6, allowLoopback: boolean): AddressVerdict {
  const embedded = embeddedIPv4(ip);
  if (embedded) {
    // Only the IPv4-mapped form reaches the local host's loopback; a NAT64
    // or 6to4 "loopback" would be some gateway's, so it never passes.
    const verdict = judgeIPv4(embedded.ipv4, allowLoopback && embedded.form === 'ipv4Mapped');
    return verdict.ok ? verdict : { ok: false, range: `${embedded.form}:${verdict.range}` };
  }
  // Teredo (2001::/32) is range 'teredo' and thus rejected outright rather
  // than decoded: its addresses are ephemeral NAT-traversal client addresses,
  // never a sensible home for an HTTPS receiver, and both embedded IPv4
  // addresses (server, obfuscated client) would otherwise need vetting.
  const range = ip.range();
  if (range === 'loopback') return allowLoopback ? ALLOWED : { ok: false, range };
  if (range !== 'unicast') return { ok: false, range };
  if (!ip.match(IPV6_GLOBAL_UNICAST)) return { ok: false, range: 'notGlobalUnicast' };
  return ALLOWED;
}

type EmbeddingForm = 'ipv4Mapped' | 'nat64' | '6to4';

function embeddedIPv4(ip: ipaddr.IPv6): { form: EmbeddingForm; ipv4: ipaddr.IPv4 } | null {
  if (ip.isIPv4MappedAddress()) return { form: 'ipv4Mapped', ipv4: ip.toIPv4Address() };
  if (ip.match(NAT64_WELL_KNOWN)) return { form: 'nat64', ipv4: ipv4FromParts(ip.parts[6]!, ip.parts[7]!) };
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD (bits 16..48).
  if (ip.range() === '6to4') return { form: '6to4', ipv4: ipv4FromParts(ip.parts[1]!, ip.parts[2]!) };
  return null;
}

function ipv4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const RANGE_DESCRIPTIONS: Record<string, string> = {
  invalid: 'not a valid IP address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique local (private) address',
  reserved: 'a reserved address',
  teredo: 'a Teredo tunnel address',
  notGlobalUnicast: 'an address outside the IPv6 global unicast range',
};

const EMBEDDING_DESCRIPTIONS: Record<EmbeddingForm, string> = {
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  nat64: 'a NAT64 address',
  '6to4': 'a 6to4 address',
};

/** `private` → `a private address`; `ipv4Mapped:private` → `an IPv4-mapped IPv6 address embedding a private address`. */
function describeRange(range: string): string {
  const [form, inner] = range.split(':');
  if (form !== undefined && inner !== undefined && Object.hasOwn(EMBEDDING_DESCRIPTIONS, form)) {
    return `${EMBEDDING_DESCRIPTIONS[form as EmbeddingForm]} embedding ${describeRange(inner)}`;
  }
  return RANGE_DESCRIPTIONS[range] ?? `a special-purpose address (${range})`;
}

const ONLY_PUBLIC = 'only public addresses are allowed.';

/**
 * Resolves `hostname` and vets every address it resolves to: one bad address
 * rejects the host, since the connection could pick any of them.
 */
export async function resolveVettedAddresses(hostname: string, opts: VettingOptions): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await opts.resolver(hostname);
  } catch {
    throw new UrlVettingError('Webhook URL host could not be resolved.');
  }
  if (addresses.length === 0) throw new UrlVettingError('Webhook URL host could not be resolved.');
  for (const { address } of addresses) {
    const verdict = isAddressAllowed(address, opts);
    if (!verdict.ok) {
      throw new UrlVettingError(
        `Webhook URL host ${hostname} resolves to ${address}, ${describeRange(verdict.range)}; ${ONLY_PUBLIC}`,
      );
    }
  }
  return addresses;
}

/** Returns the parsed URL if the service may deliver to it; throws UrlVettingError saying why not. */
export async function vetWebhookUrl(raw: string, opts: VettingOptions): Promise<URL> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new UrlVettingError(`Webhook URL must be at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    // WHATWG parsing also canonicalizes IPv4 literals written in decimal,
    // octal or hex (https://2130706433/, https://0x7f.1/) to dotted quads,
    // so they are recognized as IP literals below.
    url = new URL(raw);
  } catch {
    throw new UrlVettingError('Webhook URL is not a valid URL.');
  }
  const insecure = url.protocol === 'http:' && opts.allowInsecureLoopback === true;
  if (url.protocol !== 'https:' && !insecure) throw new UrlVettingError('Webhook URL must use https.');
  if (url.username !== '' || url.password !== '') {
    throw new UrlVettingError('Webhook URL must not contain a user name or password.');
  }

  const literal = ipLiteral(url.hostname);
  if (literal === null) {
    const addresses = await resolveVettedAddresses(url.hostname, opts);
    if (insecure)
      requireLoopback(
        url.hostname,
        addresses.map((a) => a.address),
      );
    return url;
  }
  if (insecure) requireLoopback(url.hostname, [literal]);
  const verdict = isAddressAllowed(literal, opts);
  if (!verdict.ok) {
    throw new UrlVettingError(`Webhook URL host ${url.hostname} is ${describeRange(verdict.range)}; ${ONLY_PUBLIC}`);
  }
  return url;
}

/** Plain http:// is for a receiver on this machine only. */
function requireLoopback(hostname: string, addresses: string[]): void {
  for (const address of addresses) {
    const ip = ipaddr.process(address);
    if (ip.range() !== 'loopback') {
      throw new UrlVettingError(
        `Webhook URL may use http only for a loopback address (WEBHOOK_ALLOW_INSECURE_LOOPBACK); ${hostname} is ${address}: use https.`,
      );
    }
  }
}

const FOUR_PART_DECIMAL = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** The address of an IP-literal URL host (`[::1]` → `::1`), or null for a DNS name. */
function ipLiteral(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  // After WHATWG canonicalization, an IPv4 host is always a four-part decimal. (The
  // pattern first: ipaddr.js throws and catches internally on a DNS name, which is slow.)
  return FOUR_PART_DECIMAL.test(hostname) && ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null;
}

/**
 * Vets URLs before sending, reusing a passing verdict (and so the DNS answer it rests
 * on) for `ttlMs` per URL; concurrent callers of a URL being vetted share that one
 * vetting. Within the window the verdict depends only on the URL and that answer, so it
 * cannot change. A settled hit is returned synchronously (no promise per send);
 * failures are never reused. Used for the pre-send vetting only: the sender's socket
 * lookup resolves and vets afresh, so the address connected to is always vetted live.
 */
export function vettedUrlCache(opts: VettingOptions, ttlMs: number): (raw: string) => URL | Promise<URL> {
  const cache = new Map<string, { expires: number; url: URL | null; vetting: Promise<URL> }>();
  return (raw) => {
    const now = performance.now();
    const hit = cache.get(raw);
    if (hit && hit.expires > now) return hit.url ?? hit.vetting;
    const entry = { expires: now + ttlMs, url: null as URL | null, vetting: vetWebhookUrl(raw, opts) };
    if (ttlMs <= 0) return entry.vetting;
    if (cache.size >= 1000) for (const [key, e] of cache) if (e.expires <= now) cache.delete(key);
    cache.set(raw, entry);
    entry.vetting.then(
      (url) => (entry.url = url),
      () => cache.get(raw) === entry && cache.delete(raw),
    );
    return entry.vetting;
  };
}
