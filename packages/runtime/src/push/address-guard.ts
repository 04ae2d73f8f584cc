/**
 * SSRF guard for push notification targets: classifies addresses with ipaddr.js and checks a push
 * URL at registration. Anything ipaddr.js does not call 'unicast' is refused, and so are the few
 * non-public forms it calls 'unicast' (IPv4-compatible ::a.b.c.d, anything outside 2000::/3).
 * @module
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { scrub } from '../log/logger.js'

/** A push URL or push target address that is refused; the message names the host, reason and fix. */
export class PushUrlError extends Error {
  override name = 'PushUrlError'
}

export type HostLookup = (host: string) => Promise<string[]>

export interface CheckPushUrlOptions {
  /** Permit internal targets (loopback, RFC 1918, …): development and tests only. */
  allowPrivate: boolean
  /** Resolver seam for tests; defaults to the system resolver (getaddrinfo, /etc/hosts included). */
  lookup?: HostLookup
  /** How long a name may take to resolve before it counts as not resolving; default 5 s. */
  lookupTimeoutMs?: number
}

/**
 * A resolver that cannot reach its DNS servers answers only after its retries (minutes on some
 * systems); the request registering the URL should not wait that long for a refusal.
 */
const LOOKUP_TIMEOUT_MS = 5000

export const PUSH_FIX = 'use a public https URL, or set allowPrivatePush for development and tests'

// Every address the system resolver returns, in its order, so all of them can be checked.
export const systemLookup: HostLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

const REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (RFC 6598)',
  private: 'private (RFC 1918)',
  reserved: 'reserved',
  as112: 'AS112 anycast (RFC 7534)',
  amt: 'AMT anycast (RFC 7450)',
  uniqueLocal: 'unique-local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (deprecated fec0::/10)',
  discard: 'discard-only (RFC 6666)',
  benchmarking: 'benchmarking (RFC 5180)',
  as112v6: 'AS112 anycast (RFC 7535)',
  deprecatedOrchid: 'ORCHID (deprecated)',
  orchid2: 'ORCHIDv2 (RFC 7343)',
  droneRemoteIdProtocolEntityTags: 'drone remote ID tag (RFC 9374)',
  segmentRouting: 'segment-routing SID (RFC 9602)',
  rfc6145: 'an IPv4-translated address (RFC 6145)',
  rfc6052: 'a NAT64 address (RFC 6052)',
  '6to4': 'a 6to4 address (RFC 3056)',
  teredo: 'a Teredo address (RFC 4380)',
}

const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::')

/**
 * Why `ip` must never be a push target, or undefined for a public unicast address. Input that is
 * not an IP address is refused too (fail closed). Brackets and a `%zone` suffix are accepted.
 */
export function isForbiddenAddress(ip: string): string | undefined {
  const unbracketed = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const zoneAt = unbracketed.indexOf('%')
  const bare = zoneAt === -1 ? unbracketed : unbracketed.slice(0, zoneAt)
  // node:net's parser (inet_pton rules) decides, since it is what the socket will use.
  const family = isIP(bare)
  if (family === 0) return 'not an IP address'
  if (family === 4) return classifyV4(ipaddr.IPv4.parse(bare))
  // ipaddr.js reads '::a.b.c.d' (IPv4-compatible) as '::ffff:a.b.c.d' (IPv4-mapped), so
  // '::8.8.8.8' would pass as public. WHATWG URL canonicalizes it to '::808:808' first.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1)
  const addr = ipaddr.process(canonical)
  const reason = addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6)
  // A zone id only means something for scoped (link-local) addresses: never a public target.
  return reason ?? (zoneAt === -1 ? undefined : 'scoped (has a zone id)')
}

function classifyV4(addr: ipaddr.IPv4): string | undefined {
  const range = addr.range()
  return range === 'unicast' ? undefined : (REASONS[range] ?? `special-purpose (${range})`)
}

function classifyV6(addr: ipaddr.IPv6): string | undefined {
  const range = addr.range()
  const p = addr.parts
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
  if (range !== 'unicast') {
    const label = REASONS[range] ?? `special-purpose (${range})`
    // Name the embedded IPv4 address when it is itself internal: that is the likely attack.
    const embedded =
      range === 'rfc6145'
        ? v4(p[6]!, p[7]!)
        : range === 'rfc6052' && p[2] === 0
          ? v4(p[6]!, p[7]!) // 64:ff9b::/96 only, not the /48
          : range === '6to4'
            ? v4(p[1]!, p[2]!)
            : range === 'teredo'
              ? v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff) // client address is stored inverted
              : undefined
    const inner = embedded && classifyV4(embedded)
    return inner ? `${label} embedding ${embedded.toString()} (${inner})` : label
  }
  // ::/96 other than :: and ::1 (already ranged): IPv4-compatible, deprecated by RFC 4291.
  if (p.slice(0, 6).every((part) => part === 0)) {
    const embedded = v4(p[6]!, p[7]!)
    const inner = classifyV4(embedded)
    return `an IPv4-compatible address (deprecated) embedding ${embedded.toString()}${inner ? ` (${inner})` : ''}`
  }
  // ipaddr.js defaults everything unlisted to 'unicast'; only 2000::/3 is allocated global unicast.
  if (!addr.match(GLOBAL_UNICAST, 3)) return 'not global unicast (outside 2000::/3)'
  return undefined
}

/** True for `localhost` and `*.localhost` (RFC 6761), with or without a trailing dot. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '')
  return name === 'localhost' || name.endsWith('.localhost')
}

/** The URL's host without IPv6 brackets, as node:net and the resolver want it. */
export function bareHost(url: URL): string {
  const host = url.hostname
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

/** Scheme and userinfo rules shared by registration and delivery. */
export function parsePushUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new PushUrlError(`push URL ${JSON.stringify(scrub(raw, 200))} is not an absolute URL; ${PUSH_FIX}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PushUrlError(`push URL host ${url.host || '(none)'} uses scheme ${url.protocol} which is not http or https; ${PUSH_FIX}`)
  }
  if (url.username !== '' || url.password !== '') {
    // Userinfo would go out as Basic auth and sit in stored configs and logs in clear.
    throw new PushUrlError(
      `push URL host ${url.host} carries userinfo (user:pass@), which would leak as Basic auth and into ` +
        "stored configs; remove it and put credentials in the push config's authentication",
    )
  }
  return url
}

/**
 * Validates a push URL at registration: http(s) only, no userinfo, and unless `allowPrivate`, no
 * internal host: literal IPs are classified, `localhost` names are refused without a lookup, and a
 * hostname is refused when it does not resolve or ANY address it resolves to is internal.
 * Never connects. Delivery re-checks at connect time (the name may rebind later).
 */
export async function checkPushUrl(url: string, options: CheckPushUrlOptions): Promise<URL> {
  const parsed = parsePushUrl(url)
  if (options.allowPrivate) return parsed
  // hostname is WHATWG-normalized: '2130706433', '0x7f.1', '127.1' all arrive as '127.0.0.1'.
  const host = bareHost(parsed)
  if (isIP(host) !== 0) {
    const reason = isForbiddenAddress(host)
    if (reason) throw new PushUrlError(`push URL host ${parsed.hostname} is ${reason}; ${PUSH_FIX}`)
    return parsed
  }
  if (isLocalhostName(host)) {
    throw new PushUrlError(`push URL host ${host} is loopback (a localhost name); ${PUSH_FIX}`)
  }
  let addresses: string[]
  try {
    addresses = await withTimeout((options.lookup ?? systemLookup)(host), options.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    throw new PushUrlError(`push URL host ${host} does not resolve (${typeof code === 'string' ? code : scrub(error, 120)}); ${PUSH_FIX}`)
  }
  if (addresses.length === 0) throw new PushUrlError(`push URL host ${host} resolves to no address; ${PUSH_FIX}`)
  for (const address of addresses) {
    const reason = isForbiddenAddress(address)
    if (reason) {
      throw new PushUrlError(`push URL host ${host} resolves to ${address}, which is ${reason}; ${PUSH_FIX}`)
    }
  }
  return parsed
}

/** `lookup`, or a rejection with code ETIMEOUT once `ms` have passed without an answer. */
function withTimeout(lookup: Promise<string[]>, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { code: `ETIMEOUT after ${ms / 1000} s` })), ms)
  })
  return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer))
}
