/**
 * The runtime's routes served straight from the HTTP server's request listener, before any
 * framework sees the request: `createHttpServer(a2aListener(exchange, app)).listen(3000)`. The
 * JSON-RPC and HTTP+JSON bindings, the card, artifacts, JWKS, RFC 9728 metadata and MCP skip
 * Express's per-request setup (request and response prototypes, the router's layer walk);
 * everything else goes to `app` as before.
 * @module
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { AgentHost } from '../agents/agent-host.js'
import type { Exchange } from '../exchange/exchange.js'
import { consoleLogger, scrub, type Logger } from '../log/logger.js'
import { observeRequest, observes } from '../http/request-log.js'
import { a2aRoutes, answeredRefusal, type A2aRoutesOptions } from './a2a-routes.js'
import { sendJson } from '../http/respond.js'
import { notFound, setListenerHalves } from '../http/listener-halves.js'

export interface A2aListenerOptions extends A2aRoutesOptions {
  /**
   * Where a handler's unexpected failure is logged, and one line per request when it has `info`
   * (a pino logger) at that level; default the runtime's (the console, or what `serve()` set).
   */
  logger?: Logger
}

/**
 * A `node:http` request listener serving `target`'s routes (an {@link Exchange}, or every agent
 * of an {@link AgentHost}) and handing every other request to `app` (an Express app or any
 * listener; without one, those requests get 404).
 */
export function a2aListener(target: Exchange | AgentHost, app?: RequestListener, options: A2aListenerOptions = {}): RequestListener {
  const route = a2aRoutes(target, options)
  const logger = options.logger ?? consoleLogger
  const rest = app ?? notFound
  const serving =
    (otherwise: RequestListener): RequestListener =>
    (request, response) => {
      const serve = route(request)
      if (!serve) return otherwise(request, response)
      const served = observes(logger) ? observeRequest(serve, request, response, logger) : serve(request, response)
      served.catch((error: unknown) => failed(logger, request, response, error))
    }
  const listener = serving(rest)
  setListenerHalves(listener, { a2a: serving(notFound), app: rest })
  return listener
}

/** A handler that threw after its own error handling: a refusal answered as such, anything else 500 if nothing was sent yet. */
function failed(logger: Logger, request: IncomingMessage, response: ServerResponse, error: unknown): void {
  if (answeredRefusal(response, error)) return
  logger.error(`a2a: serving ${scrub(request.method)} ${scrub(request.url)} failed: ${scrub(error)}`)
  if (response.headersSent) return void response.destroy()
  sendJson(response, 500, { error: 'Internal server error' })
}
