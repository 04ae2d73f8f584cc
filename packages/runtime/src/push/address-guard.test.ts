import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PushUrlError, checkPushUrl, isForbiddenAddress, type HostLookup } from './address-guard.js'

// Stub resolver: never touches DNS or the network; unknown names fail like getaddrinfo does.
const names: Record<string, string[]> = {
  'rebind.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.215.14', '10.0.0.7'],
  'mixed6.test': ['2606:4700:4700::1111', 'fd00::5'],
  'compat.test': ['::8.8.8.8'],
  'public.test': ['93.184.215.14'],
}
const lookup: HostLookup = async (host) => {
  const found = names[host]
  if (found) return found
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
}
const refuse = { allowPrivate: false, lookup }

// [url, reason fragment the message must carry]
const refused: Array<[string, RegExp]> = [
  ['http://127.0.0.1/hook', /host 127\.0\.0\.1 is loopback/],
  ['http://127.1/hook', /127\.0\.0\.1 is loopback/],
  ['http://2130706433/hook', /127\.0\.0\.1 is loopback/],
  ['http://0x7f000001/hook', /127\.0\.0\.1 is loopback/],
  ['http://017700000001/hook', /127\.0\.0\.1 is loopback/],
  ['http://0x7f.1/hook', /127\.0\.0\.1 is loopback/],
  ['http://127.255.255.254:8080/hook', /loopback/],
  ['http://10.0.0.1/hook', /private \(RFC 1918\)/],
  ['http://172.16.0.1/hook', /private/],
  ['http://172.31.255.254/hook', /private/],
  ['http://192.168.1.1/hook', /private/],
  ['http://100.64.0.1/hook', /carrier-grade NAT/],
  ['http://169.254.169.254/latest/meta-data/', /link-local/],
  ['http://0.0.0.0/hook', /unspecified/],
  ['http://0.1.2.3/hook', /unspecified/],
  ['http://224.0.0.1/hook', /multicast/],
  ['http://255.255.255.255/hook', /broadcast/],
  ['http://240.0.0.1/hook', /reserved/],
  ['http://198.18.0.1/hook', /reserved/],
  ['http://[::1]/hook', /host \[::1\] is loopback/],
  ['http://[::]/hook', /unspecified/],
  ['http://[fe80::1]/hook', /link-local/],
  ['http://[fc00::1]/hook', /unique-local/],
  ['http://[fd12::1]/hook', /unique-local/],
  ['http://[ff02::1]/hook', /multicast/],
  ['http://[::ffff:127.0.0.1]/hook', /loopback/],
  ['http://[::ffff:10.0.0.1]/hook', /private/],
  ['http://[::ffff:7f00:1]/hook', /loopback/],
  ['http://[::127.0.0.1]/hook', /IPv4-compatible.*127\.0\.0\.1 \(loopback\)/],
  ['http://[::8.8.8.8]/hook', /IPv4-compatible/],
  ['http://[::ffff:0:7f00:1]/hook', /IPv4-translated.*loopback/],
  ['http://[64:ff9b::7f00:1]/hook', /NAT64.*127\.0\.0\.1 \(loopback\)/],
  ['http://[64:ff9b::a9fe:a9fe]/hook', /NAT64.*link-local/],
  ['http://[2002:7f00:1::]/hook', /6to4.*127\.0\.0\.1 \(loopback\)/],
  ['http://[2002:c0a8:101::1]/hook', /6to4.*192\.168\.1\.1 \(private/],
  // Teredo client 127.0.0.1 is stored inverted: ~0x7f000001 = 80ff:fffe.
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', /Teredo.*127\.0\.0\.1 \(loopback\)/],
  ['http://[fec0::1]/hook', /site-local/],
  ['http://[2001:db8::1]/hook', /reserved/],
  ['http://[100::1]/hook', /discard/],
  ['http://[1::1]/hook', /outside 2000::\/3/],
  ['http://localhost/hook', /localhost.*loopback/],
  ['http://foo.localhost:3000/hook', /foo\.localhost.*loopback/],
  ['http://LOCALHOST./hook', /localhost.*loopback/],
  ['http://rebind.test/hook', /rebind\.test resolves to 127\.0\.0\.1, which is loopback/],
  ['http://metadata.test/hook', /169\.254\.169\.254, which is link-local/],
  ['http://mixed.test/hook', /resolves to 10\.0\.0\.7, which is private/],
  ['http://mixed6.test/hook', /resolves to fd00::5, which is unique-local/],
  ['http://compat.test/hook', /::8\.8\.8\.8, which is an IPv4-compatible/],
  ['http://user:pass@example.com/hook', /userinfo/],
  ['https://token@93.184.215.14/hook', /userinfo/],
  ['ftp://example.com/hook', /scheme ftp: which is not http or https/],
  ['file:///etc/passwd', /scheme file:/],
  ['gopher://127.0.0.1:6379/_INFO', /scheme gopher:/],
  ['not a url', /not an absolute URL/],
  ['http://[::1/hook', /not an absolute URL/],
  ['http://no-such-host.invalid/hook', /no-such-host\.invalid does not resolve \(ENOTFOUND\)/],
]

describe('checkPushUrl refuses internal targets', () => {
  it('covers at least 40 cases', () => expect(refused.length).toBeGreaterThanOrEqual(40))

  it.each(refused)('%s', async (url, reason) => {
    const failure = await checkPushUrl(url, refuse).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(PushUrlError)
    expect((failure as Error).message).toMatch(reason)
    // Every message carries the fix, not just the problem.
    expect((failure as Error).message).toMatch(/; (use a public https URL, or set allowPrivatePush|remove it and put)/)
  })

  // No test asks the system resolver about a name outside this machine: one without a reachable
  // DNS server answers only after minutes. A resolver that never answers is refused after the timeout.
  it('refuses a name whose lookup does not answer in time, instead of waiting for the resolver', async () => {
    const silent: HostLookup = () => new Promise(() => {})
    await expect(checkPushUrl('http://no-answer.test/hook', { allowPrivate: false, lookup: silent, lookupTimeoutMs: 50 })).rejects.toThrow(
      'push URL host no-answer.test does not resolve (ETIMEOUT after 0.05 s); use a public https URL',
    )
  })

  // `localhost` itself is refused before any lookup, so prove the real resolver path with another
  // /etc/hosts name that maps to loopback (e.g. a container's own hostname, or ip6-localhost).
  const hostsName = loopbackNameFromEtcHosts()
  it.skipIf(!hostsName)(`refuses ${hostsName ?? '(no /etc/hosts loopback alias)'} resolved by the system`, async () => {
    await expect(checkPushUrl(`http://${hostsName}/hook`, { allowPrivate: false })).rejects.toThrow(/resolves to (127\.\d+\.\d+\.\d+|::1), which is loopback/)
  })

  it('reports the WHATWG-normalized host for odd IPv4 spellings', async () => {
    await expect(checkPushUrl('http://0x7f.1/', refuse)).rejects.toThrow(
      'push URL host 127.0.0.1 is loopback; use a public https URL, or set allowPrivatePush for development and tests',
    )
  })
})

describe('checkPushUrl accepts public targets', () => {
  it.each(['https://93.184.215.14/hook', 'https://[2606:4700:4700::1111]/x', 'http://public.test:8080/a?b=c'])('%s', async (url) => {
    const parsed = await checkPushUrl(url, refuse)
    expect(parsed.href).toBe(new URL(url).href)
  })

  it('lets internal targets through with allowPrivate, without a lookup', async () => {
    const failing: HostLookup = () => Promise.reject(new Error('must not be called'))
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://rebind.test/x']) {
      await expect(checkPushUrl(url, { allowPrivate: true, lookup: failing })).resolves.toBeInstanceOf(URL)
    }
  })

  it('still refuses userinfo and non-http schemes with allowPrivate', async () => {
    await expect(checkPushUrl('http://a:b@127.0.0.1/', { allowPrivate: true })).rejects.toThrow(/userinfo/)
    await expect(checkPushUrl('file:///etc/passwd', { allowPrivate: true })).rejects.toThrow(/scheme/)
  })
})

describe('isForbiddenAddress', () => {
  it('passes public unicast addresses', () => {
    for (const ip of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '[2a00:1450:4001::200e]']) {
      expect(isForbiddenAddress(ip)).toBeUndefined()
    }
  })

  it('names the reason for internal addresses', () => {
    expect(isForbiddenAddress('127.0.0.1')).toBe('loopback')
    expect(isForbiddenAddress('::1')).toBe('loopback')
    expect(isForbiddenAddress('192.168.0.1')).toBe('private (RFC 1918)')
    expect(isForbiddenAddress('fe80::1%eth0')).toBe('link-local')
    expect(isForbiddenAddress('64:ff9b::8.8.8.8')).toBe('a NAT64 address (RFC 6052)')
  })

  it('refuses anything that is not an IP address, and zoned addresses', () => {
    expect(isForbiddenAddress('example.com')).toBe('not an IP address')
    expect(isForbiddenAddress('0x7f.1')).toBe('not an IP address')
    expect(isForbiddenAddress('2606:4700:4700::1111%eth0')).toBe('scoped (has a zone id)')
  })
})

function loopbackNameFromEtcHosts(): string | undefined {
  let text: string
  try {
    text = readFileSync('/etc/hosts', 'utf8')
  } catch {
    return undefined
  }
  for (const line of text.split('\n')) {
    const [address, ...hostNames] = line.replace(/#.*/, '').trim().split(/\s+/)
    if (!address || !(address.startsWith('127.') || address === '::1')) continue
    const name = hostNames.find((n) => n !== '' && !/(^|\.)localhost\.?$/i.test(n) && !n.includes(':'))
    if (name) return name
  }
  return undefined
}
