/**
 * A person's inbox: the tasks of the app's agents that wait on the signed-in person (input or
 * auth required) first, then recent ones, each with its question, conversation and work
 * products; a form that answers the question exactly as a SendMessage naming the task would
 * (same run, history, push notifications and limits: it is that call, as the person); live
 * updates over SSE; each artifact at a web URL. Sign-in: the app's own login
 * (`resolveSession`), or a one-time link (`a2a inbox-link --user <id>`) exchanged for a session.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AgentHost } from '../agents/agent-host.js'
import { requestBaseUrl } from '../http/base-url.js'
import type { Exchange } from '../exchange/exchange.js'
import { normalizeOrigin, originAllowed } from '../http/origin.js'
import { readBody } from '../http/read-body.js'
import { requestPath } from '../http/request-path.js'
import { consoleLogger, scrub, type Logger } from '../log/logger.js'
import { A2AError } from '../wire/a2a-error.js'
import type { Part } from '../wire/types.js'
import { InboxAgents, type TaskView } from './agents.js'
import { INBOX_CSS, INBOX_JS } from './assets.js'
import { InboxFeed } from './feed.js'
import { artifactPage, listPage, messagePage, render, signInPage, taskDetail, taskItem, taskPage, type Html, type PageContext } from './pages.js'
import { Sessions, type SessionResolver, type Signed } from './session.js'
import { inboxLinkUrl, MemoryInboxTokens, mintInboxLink, type InboxTokens, type NewInboxLink } from './tokens.js'

export interface InboxOptions {
  /** Where the inbox lives; default `/inbox`. */
  path?: string
  /** The app's own login: the person behind a request (their owner and tenant), or null. */
  resolveSession?: SessionResolver
  /**
   * Where one-time links and sessions are kept: `prismaInboxTokens(db)` for links printed by
   * `a2a inbox-link`; default the process (links made with {@link Inbox.createLink} only).
   * `false` turns the built-in sign-in off (then `resolveSession` is required).
   */
  tokens?: InboxTokens | false
  /** How long a session lasts; default 8 hours. */
  sessionTtlMs?: number
  /** Secure cookies; default when the request came over TLS or `publicUrl` is https. */
  secureCookies?: boolean
  /** The app's public base URL (scheme://host), for links and the Origin check behind a proxy. */
  publicUrl?: string
  /** Keep-alive of the live feed; default 15 s (the session is checked again at each). */
  keepAliveMs?: number
  logger?: Logger
  /** The clock; tests move it. */
  now?: () => Date
}

const FORM_BYTES = 64 * 1024
const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own forms.
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}

export class Inbox {
  readonly path: string
  readonly #agents: InboxAgents
  readonly #sessions: Sessions
  readonly #tokens: InboxTokens | undefined
  readonly #feed: InboxFeed
  readonly #options: InboxOptions
  readonly #logger: Logger
  /** The public URL's origin, admitted besides the request's own host. */
  readonly #origins: ReadonlySet<string>

  constructor(target: Exchange | AgentHost, options: InboxOptions = {}) {
    this.path = (options.path ?? '/inbox').replace(/\/+$/, '')
    if (!this.path.startsWith('/') || this.path.length < 2) throw new Error(`Inbox path "${options.path}" must start with "/" and name a folder, like /inbox`)
    if (options.tokens === false && !options.resolveSession) throw new Error("An inbox without its built-in sign-in (tokens: false) needs resolveSession, the app's own login")
    this.#options = options
    this.#logger = options.logger ?? consoleLogger
    const publicOrigin = options.publicUrl === undefined ? undefined : normalizeOrigin(options.publicUrl)
    if (options.publicUrl !== undefined && !publicOrigin) throw new Error(`Inbox publicUrl "${options.publicUrl}" is not a URL like https://app.example.com`)
    this.#origins = new Set(publicOrigin ? [publicOrigin] : [])
    this.#agents = new InboxAgents(target, this.path)
    this.#tokens = options.tokens === false ? undefined : (options.tokens ?? new MemoryInboxTokens())
    const publicHttps = options.publicUrl?.startsWith('https:') ?? false
    this.#sessions = new Sessions({
      tokens: this.#tokens,
      resolveSession: options.resolveSession,
      sessionTtlMs: options.sessionTtlMs ?? 8 * 3_600_000,
      secure: (request) => options.secureCookies ?? (publicHttps || Boolean((request.socket as { encrypted?: boolean }).encrypted)),
      now: options.now ?? (() => new Date()),
    })
    this.#feed = new InboxFeed(this.#agents, options.keepAliveMs ?? 15_000, this.#logger)
  }

  /**
   * A one-time sign-in link for `owner` (what `a2a inbox-link` prints): `<base><path>/sign-in?token=…`.
   * Needs the built-in sign-in.
   */
  async createLink(link: NewInboxLink & { baseUrl?: string }): Promise<{ url: string; expiresAt: Date }> {
    if (!this.#tokens) throw new Error('This inbox has no built-in sign-in (tokens: false): people sign in through the app')
    const { token, expiresAt } = await mintInboxLink(this.#tokens, { ...link, now: link.now ?? this.#options.now?.() })
    return { url: inboxLinkUrl(link.baseUrl ?? this.#options.publicUrl ?? '', this.path, token), expiresAt }
  }

  /** Express middleware (or a plain listener's first step): serves the inbox's paths, passes the rest on. */
  readonly middleware = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void): void => {
    this.handle(request, response).then(
      (served) => served || next?.(),
      (error: unknown) => this.#failed(request, response, error),
    )
  }

  /** Serves a request under the inbox's path; resolves false when the path is not the inbox's. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const pathname = requestPath(request)
    if (pathname !== this.path && !pathname.startsWith(`${this.path}/`)) return false
    const sub = pathname.slice(this.path.length).replace(/\/+$/, '')
    const method = request.method ?? 'GET'
    if (sub === '/inbox.css') return this.#asset(response, 'text/css; charset=utf-8', INBOX_CSS)
    if (sub === '/inbox.js') return this.#asset(response, 'text/javascript; charset=utf-8', INBOX_JS)
    if (method === 'POST' && !this.#sameOrigin(request)) {
      return this.#page(request, response, 403, (context) => messagePage(context, 'Refused', 'This form was sent from another site. Open the inbox and send it from there.'))
    }
    if (sub === '/sign-in') return method === 'POST' ? this.#signIn(request, response) : this.#signInPage(request, response)
    const signed = await this.#sessions.resolve(request)
    if (!signed) return this.#signInNeeded(request, response)
    const segments = sub.split('/').slice(1).map(decodeSegment)
    if (method === 'POST') {
      const form = await this.#form(request)
      if (!form || !this.#sessions.csrfMatches(request, form.get('csrf') ?? undefined)) {
        return this.#page(
          request,
          response,
          403,
          (context) => messagePage(context, 'Refused', 'This form was missing its security token or was sent from an old page. Reload the inbox and send it again.'),
          signed,
        )
      }
      if (sub === '/sign-out') return this.#signOut(request, response, signed)
      if (segments.length === 3 && segments[0] === 'tasks' && segments[2] === 'answer') return this.#answer(request, response, signed, segments[1]!, form)
      return this.#notFound(request, response, signed)
    }
    if (method !== 'GET' && method !== 'HEAD') {
      response.writeHead(405, { ...SECURITY_HEADERS, Allow: 'GET, HEAD, POST' }).end()
      return true
    }
    // Before the read: a write between it and the page's feed is sent by the feed.
    const readAt = new Date().toISOString()
    if (sub === '') {
      const { waiting, recent } = await this.#agents.tasks(signed.principal)
      return this.#page(request, response, 200, (context) => listPage({ ...context, readAt }, waiting, recent), signed)
    }
    if (sub === '/events') return this.#events(request, response, signed)
    if (segments[0] !== 'tasks' || !segments[1] || segments.length > 5 || segments.includes(undefined)) return this.#notFound(request, response, signed)
    const view = await this.#agents.find(signed.principal, segments[1])
    if (!view) return this.#notFound(request, response, signed)
    if (segments.length === 2) return this.#page(request, response, 200, (context) => taskPage({ ...context, readAt }, view), signed)
    if (segments[2] !== 'artifacts' || segments.length < 4) return this.#notFound(request, response, signed)
    const artifact = view.task.artifacts?.find((candidate) => candidate.artifactId === segments[3])
    if (!artifact) return this.#notFound(request, response, signed)
    if (segments.length === 4) return this.#page(request, response, 200, (context) => artifactPage(context, view, artifact), signed)
    const part = /^\d+$/.test(segments[4]!) ? artifact.parts[Number(segments[4])] : undefined
    return part ? this.#download(request, response, signed, view, part) : this.#notFound(request, response, signed)
  }

  /** Ends every open live feed (call on shutdown, before closing the server). */
  close(): void {
    this.#feed.close()
  }

  async #signInPage(request: IncomingMessage, response: ServerResponse): Promise<true> {
    const token = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token') ?? ''
    // A page with a button, not a sign-in on GET: link previews and mail scanners fetch links and would use it up.
    return this.#page(request, response, 200, (context) => signInPage(context, token))
  }

  async #signIn(request: IncomingMessage, response: ServerResponse): Promise<true> {
    const form = await this.#form(request)
    const cookie = form ? await this.#sessions.signIn(request, form.get('token') ?? '') : undefined
    if (!cookie) {
      return this.#page(request, response, 400, (context) =>
        messagePage(context, 'This sign-in link does not work', 'It has expired or was used already, or was never issued. Ask for a new one: npx a2a inbox-link --user <your id>.'),
      )
    }
    response.writeHead(303, { ...SECURITY_HEADERS, Location: this.path, 'Set-Cookie': cookie }).end()
    return true
  }

  async #signOut(request: IncomingMessage, response: ServerResponse, signed: Signed): Promise<true> {
    const cookie = await this.#sessions.signOut(request, signed)
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Set-Cookie': cookie })
    const context = { path: this.path, csrf: '' }
    response.end(await render(messagePage(context, 'Signed out', 'You are signed out of the inbox. Sign in again with a new link.')))
    return true
  }

  async #signInNeeded(request: IncomingMessage, response: ServerResponse): Promise<true> {
    if (requestPath(request).endsWith('/events')) {
      response.writeHead(401, SECURITY_HEADERS).end()
      return true
    }
    return this.#page(request, response, 401, (context) =>
      messagePage(
        context,
        'Sign in to your inbox',
        this.#tokens ? 'Open a sign-in link to see your tasks. Get one with: npx a2a inbox-link --user <your id>.' : 'Sign in to the app to see your tasks.',
      ),
    )
  }

  async #answer(request: IncomingMessage, response: ServerResponse, signed: Signed, taskId: string, form: URLSearchParams): Promise<true> {
    const view = await this.#agents.find(signed.principal, taskId)
    if (!view) return this.#notFound(request, response, signed)
    const text = (form.get('text') ?? '').trim()
    const messageId = form.get('messageId') ?? ''
    const retry = (error: string) => this.#page(request, response, 400, (context) => taskPage(context, view, { text, error }), signed)
    if (!text) return retry('Write an answer before sending it.')
    if (!/^[\w-]{8,128}$/.test(messageId)) return retry('This form is missing its message id; reload the page and send your answer again.')
    try {
      await this.#agents.answer(view, signed.principal, text, messageId, this.#baseUrl(request))
    } catch (error) {
      // The exchange's own refusal (the task settled meanwhile, a limit), said to the person with what they wrote kept.
      if (error instanceof A2AError) return retry(error.message)
      throw error
    }
    response.writeHead(303, { ...SECURITY_HEADERS, Location: `${this.path}/tasks/${encodeURIComponent(taskId)}` }).end()
    return true
  }

  #events(request: IncomingMessage, response: ServerResponse, signed: Signed): true {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams
    const taskId = query.get('task') ?? undefined
    const since = query.get('since') ?? undefined
    const context = this.#context(request, signed)
    this.#feed.open(request, response, {
      principal: signed.principal,
      ...(taskId ? { taskId } : {}),
      ...(since ? { since } : {}),
      render: (view) => render(taskId ? taskDetail(context, view) : taskItem(context, view)),
      stillSignedIn: async () => (await this.#sessions.resolve(request))?.principal.owner === signed.principal.owner,
    })
    return true
  }

  async #download(request: IncomingMessage, response: ServerResponse, signed: Signed, view: TaskView, part: Part): Promise<true> {
    let file: { bytes: Uint8Array; mediaType: string; filename?: string | undefined } | undefined
    if ('raw' in part) {
      file = { bytes: Buffer.from(part.raw, 'base64'), mediaType: part.mediaType || 'application/octet-stream', filename: part.filename }
    } else if ('url' in part) {
      // Content past the inline cap: the exchange's own file, read as the person.
      const match = /\/artifacts\/([^/]+)\/([^/?#]+)$/.exec(new URL(part.url, 'http://localhost').pathname)
      const stored =
        match && decodeSegment(match[1]!) === view.task.id ? await view.agent.exchange.artifactFile(signed.principal, view.task.id, decodeSegment(match[2]!) ?? '') : undefined
      if (stored) file = { bytes: stored.bytes, mediaType: stored.mediaType, filename: stored.filename ?? part.filename }
    } else if ('text' in part) {
      file = { bytes: Buffer.from(part.text), mediaType: `${part.mediaType || 'text/plain'}; charset=utf-8`, filename: part.filename }
    } else {
      file = { bytes: Buffer.from(JSON.stringify(part.data, null, 2)), mediaType: 'application/json', filename: part.filename }
    }
    if (!file) return this.#notFound(request, response, signed)
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': file.mediaType,
      'Content-Length': file.bytes.byteLength,
      'Content-Disposition': `attachment${file.filename ? `; filename*=UTF-8''${encodeURIComponent(file.filename)}` : ''}`,
    })
    response.end(request.method === 'HEAD' ? undefined : file.bytes)
    return true
  }

  #notFound(request: IncomingMessage, response: ServerResponse, signed: Signed): Promise<true> {
    // The same page for another person's task as for one that never existed.
    return this.#page(request, response, 404, (context) => messagePage(context, 'Not found', 'There is no such task or work product in your inbox.'), signed)
  }

  async #page(request: IncomingMessage, response: ServerResponse, status: number, page: (context: PageContext) => Html, signed?: Signed): Promise<true> {
    const context = this.#context(request, signed)
    const body = await render(page(context))
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' }
    const csrf = this.#sessions.csrf(request)
    if (csrf.setCookie) headers['Set-Cookie'] = csrf.setCookie
    response.writeHead(status, headers)
    response.end(request.method === 'HEAD' ? undefined : body)
    return true
  }

  #context(request: IncomingMessage, signed: Signed | undefined): PageContext {
    return { path: this.path, csrf: this.#sessions.csrf(request).token, ...(signed ? { owner: signed.principal.owner } : {}) }
  }

  #asset(response: ServerResponse, type: string, text: string): true {
    response.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' }).end(text)
    return true
  }

  async #form(request: IncomingMessage): Promise<URLSearchParams | undefined> {
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    if (type !== 'application/x-www-form-urlencoded') return undefined
    const body = await readBody(request, { maxBodyBytes: FORM_BYTES, bodyIdleTimeoutMs: 30_000 })
    return 'text' in body ? new URLSearchParams(body.text) : undefined
  }

  /** A browser's POST names its origin: one from another site is refused before anything else. */
  #sameOrigin(request: IncomingMessage): boolean {
    const origin = request.headers.origin
    const site = request.headers['sec-fetch-site']
    // No Origin (or an opaque one): the browser's Fetch Metadata says where the form came from; a client without either is no browser.
    if (origin === undefined || origin === 'null') return site === undefined || site === 'same-origin'
    // As the A2A endpoint's gate: the Origin's host is the request's own (any scheme: a TLS proxy may sit in front) or the public URL's.
    return originAllowed(request.headers, this.#origins)
  }

  #baseUrl(request: IncomingMessage): string {
    return this.#options.publicUrl?.replace(/\/+$/, '') ?? requestBaseUrl(request)
  }

  #failed(request: IncomingMessage, response: ServerResponse, error: unknown): void {
    this.#logger.error(`a2a inbox: serving ${scrub(request.method)} ${scrub(request.url)} failed: ${scrub(error)}`)
    if (response.headersSent) return void response.destroy()
    response.writeHead(500, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }).end('The inbox failed to answer; try again shortly.')
  }
}

const decodeSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** The inbox of `target`'s agents; mount `inbox.middleware` on the app (before body parsers). */
export function createInbox(target: Exchange | AgentHost, options?: InboxOptions): Inbox {
  return new Inbox(target, options)
}
