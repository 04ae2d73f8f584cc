/**
 * `/healthz` (the process answers) and `/readyz` (it should get traffic: its database answers,
 * its schema is current, it is not shutting down), answered before the app's listener sees the
 * request. A balancer takes a replica out on 503; a process manager restarts one whose /healthz fails.
 * @module
 */
import type { RequestListener } from 'node:http'
import { sendJson } from '../http/respond.js'
import { requestPath } from '../http/request-path.js'
import { scrub } from '../log/logger.js'

export const HEALTH_PATH = '/healthz'
export const READY_PATH = '/readyz'

export interface ReadinessOptions {
  /** Checks that the app can serve: rejects with the reason it cannot (e.g. the database is unreachable). */
  check?: () => Promise<unknown>
  /** Longest wait for `check`; past it the probe answers 503. Default 2000 ms. */
  timeoutMs?: number
}

/** Whether the process should get traffic now; {@link Readiness.close} turns it off for good. */
export class Readiness {
  #closing = false
  #pending: Promise<string | undefined> | undefined
  readonly #check: (() => Promise<unknown>) | undefined
  readonly #timeoutMs: number

  constructor(options: ReadinessOptions = {}) {
    this.#check = options.check
    this.#timeoutMs = options.timeoutMs ?? 2000
  }

  /** Shutting down: every probe from now on answers 503. */
  close(): void {
    this.#closing = true
  }

  get closing(): boolean {
    return this.#closing
  }

  /** Undefined when ready, else why not. Concurrent probes share one check. */
  async reason(): Promise<string | undefined> {
    if (this.#closing) return 'shutting down'
    if (!this.#check) return undefined
    const reason = await (this.#pending ??= this.#run().finally(() => (this.#pending = undefined)))
    return this.#closing ? 'shutting down' : reason
  }

  async #run(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`the readiness check did not answer within ${this.#timeoutMs} ms`), this.#timeoutMs)))
    try {
      return await Promise.race([this.#check!().then(() => undefined), late])
    } catch (error) {
      return scrub(error instanceof Error ? error.message : error, 300)
    } finally {
      clearTimeout(timer)
    }
  }
}

/** `listener` behind {@link HEALTH_PATH} and {@link READY_PATH}, answered as JSON, never cached. */
export function withHealthRoutes(listener: RequestListener, readiness: Readiness): RequestListener {
  return (request, response) => {
    const path = request.url === HEALTH_PATH || request.url === READY_PATH ? request.url : requestPath(request)
    if (path !== HEALTH_PATH && path !== READY_PATH) return listener(request, response)
    const headers = { 'Cache-Control': 'no-store' }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(response, 405, { error: `${path} answers GET (or HEAD)` }, { ...headers, Allow: 'GET, HEAD' })
    }
    if (path === HEALTH_PATH) return sendJson(response, 200, { status: 'ok' }, headers)
    void readiness
      .reason()
      .then((reason) => (reason === undefined ? sendJson(response, 200, { status: 'ready' }, headers) : sendJson(response, 503, { status: 'not ready', reason }, headers)))
  }
}
