/**
 * Express 5 wiring, for apps whose A2A routes must run inside their middleware chain (after a
 * logger, a rate limiter, an auth layer of the app's): `app.use(a2aRouter(exchange))` serves the
 * JSON-RPC endpoint, the HTTP+JSON routes, the card, artifacts, JWKS and RFC 9728 metadata, plus
 * MCP at `/mcp` when the exchange has entity tools. Every request then pays Express's own setup
 * first; apps that need no middleware on these routes serve them with `a2aListener` (the root
 * export) instead, from the HTTP server's listener. Mount it before body-parsing middleware such
 * as `express.json()`: the exchange reads the body itself, strictly and under its cap.
 * @module
 */
import { Router, type RequestHandler, type Response } from 'express'
import type { AgentHost } from '../agents/agent-host.js'
import type { Exchange } from '../exchange/exchange.js'
import { a2aRoutes, answeredRefusal, mcpRoute, routePath, type A2aRoutes } from './a2a-routes.js'
import { consoleLogger } from '../log/logger.js'
import { observeRequest, observes } from '../http/request-log.js'

export interface A2aRouterOptions {
  /** The MCP mount for the exchange's tools: its path (default `/mcp`), or false for none. */
  mcp?: false | { path?: string }
}

export function a2aRouter(exchange: Exchange, options: A2aRouterOptions = {}): Router {
  return Router().use(serving(a2aRoutes(exchange, options)))
}

/** Serves only the exchange's tools over MCP Streamable HTTP (stateless), at `path` (default `/mcp`). */
export function mcpRouter(exchange: Exchange, path = '/mcp'): Router {
  const mcp = mcpRoute(exchange, path)
  return Router().use(serving((request) => (routePath(request) === mcp.path ? mcp.serve : undefined)))
}

/**
 * Serves an {@link AgentHost}: every agent under its base path (`/a2a/<id>`, its card, REST, MCP
 * and artifact routes), the index `/a2a/agents`, and the app-wide RFC 9728 metadata and JWKS
 * (the first agent's: agents of one host share their signing keys).
 */
export function agentsRouter(host: AgentHost): Router {
  return Router().use(serving(a2aRoutes(host)))
}

/**
 * Our routes' responses never name the framework: Express sets `X-Powered-By` on every response
 * of an app that has not disabled it (generated apps do), and these routes may be mounted in one.
 */
const unbranded = (response: Response): void => response.removeHeader('X-Powered-By')

/** The runtime's routes as one middleware: unbranded, and a rejection other than a refusal goes to the app's error handling. */
const serving =
  (routes: A2aRoutes): RequestHandler =>
  (request, response, next) => {
    const serve = routes(request)
    if (!serve) return next()
    unbranded(response)
    const served = observes(consoleLogger) ? observeRequest(serve, request, response, consoleLogger) : serve(request, response)
    served.catch((error: unknown) => answeredRefusal(response, error) || next(error))
  }
