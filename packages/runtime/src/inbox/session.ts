/**
 * Who the person is: the app's own login (`resolveSession(request)`), else the inbox's built-in
 * session cookie (made from a one-time link). Cookies are httpOnly, SameSite, Secure (and
 * `__Host-` named) over HTTPS. Every form carries a CSRF token that must equal the CSRF cookie
 * (double submit), and a POST from another origin is refused before that.
 * @module
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Principal } from '../core/principal.js'
import { newToken, tokenHash, type InboxTokens } from './tokens.js'

/** The app's own sign-in: the person behind a request, or null. */
export type SessionResolver = (request: IncomingMessage) => Principal | null | undefined | Promise<Principal | null | undefined>

const SESSION = 'a2a_inbox'
const CSRF = 'a2a_inbox_csrf'

export interface CookieOptions {
  secure: boolean
  /** Seconds; absent for a cookie that ends with the browser session; 0 deletes it. */
  maxAge?: number
}

/** Cookie names carry `__Host-` over HTTPS: such a cookie cannot be set by a sibling subdomain nor for another path. */
export const cookieName = (name: string, secure: boolean): string => (secure ? `__Host-${name}` : name)

export function serializeCookie(name: string, value: string, options: CookieOptions & { sameSite: 'Lax' | 'Strict' }): string {
  const parts = [`${cookieName(name, options.secure)}=${value}`, 'Path=/', 'HttpOnly', `SameSite=${options.sameSite}`]
  if (options.secure) parts.push('Secure')
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`)
  return parts.join('; ')
}

/** The request's cookies; a malformed pair is skipped. */
export function parseCookies(request: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=')
    if (at <= 0) continue
    const name = pair.slice(0, at).trim()
    if (!cookies.has(name)) cookies.set(name, pair.slice(at + 1).trim())
  }
  return cookies
}

/** Whether the two strings are equal, in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

export interface SessionsOptions {
  tokens: InboxTokens | undefined
  resolveSession: SessionResolver | undefined
  sessionTtlMs: number
  secure: (request: IncomingMessage) => boolean
  now: () => Date
}

export interface Signed {
  principal: Principal
  /** The built-in session's token hash (sign-out deletes it); absent for the app's own login. */
  sessionHash?: string
}

export class Sessions {
  constructor(private readonly options: SessionsOptions) {}

  /** The signed-in person, or undefined. */
  async resolve(request: IncomingMessage): Promise<Signed | undefined> {
    const own = await this.options.resolveSession?.(request)
    if (own?.owner) return { principal: own }
    const token = parseCookies(request).get(cookieName(SESSION, this.options.secure(request)))
    if (!token || !this.options.tokens) return undefined
    const hash = tokenHash(token)
    const row = await this.options.tokens.findSession(hash, this.options.now())
    if (!row) return undefined
    return { principal: row.tenant === null ? { owner: row.owner } : { owner: row.owner, tenant: row.tenant }, sessionHash: hash }
  }

  /** Exchanges a one-time link for a session; resolves to its Set-Cookie header, or undefined when the link is refused. */
  async signIn(request: IncomingMessage, linkToken: string): Promise<string | undefined> {
    const tokens = this.options.tokens
    if (!tokens || !linkToken) return undefined
    const now = this.options.now()
    const link = await tokens.useLink(tokenHash(linkToken), now)
    if (!link) return undefined
    const token = newToken()
    const expiresAt = new Date(now.getTime() + this.options.sessionTtlMs)
    await tokens.put({ hash: tokenHash(token), kind: 'session', owner: link.owner, tenant: link.tenant, createdAt: now, expiresAt, usedAt: null })
    return serializeCookie(SESSION, token, { secure: this.options.secure(request), sameSite: 'Lax', maxAge: Math.floor(this.options.sessionTtlMs / 1000) })
  }

  /** Ends the built-in session (its row deleted: the cookie signs nobody in any more); the Set-Cookie that clears it. */
  async signOut(request: IncomingMessage, signed: Signed): Promise<string> {
    if (signed.sessionHash) await this.options.tokens?.remove(signed.sessionHash)
    return serializeCookie(SESSION, '', { secure: this.options.secure(request), sameSite: 'Lax', maxAge: 0 })
  }

  /**
   * The CSRF token for the request's forms: the CSRF cookie's, or a new one with the Set-Cookie
   * that stores it. Strict: a cross-site request never carries it.
   */
  csrf(request: IncomingMessage): { token: string; setCookie?: string } {
    const secure = this.options.secure(request)
    const current = parseCookies(request).get(cookieName(CSRF, secure))
    if (current && /^[\w-]{43}$/.test(current)) return { token: current }
    const token = newToken()
    return { token, setCookie: serializeCookie(CSRF, token, { secure, sameSite: 'Strict' }) }
  }

  /** Whether a form's CSRF field matches the request's CSRF cookie. */
  csrfMatches(request: IncomingMessage, field: string | undefined): boolean {
    const cookie = parseCookies(request).get(cookieName(CSRF, this.options.secure(request)))
    return Boolean(cookie && field && sameSecret(cookie, field))
  }
}
