/**
 * Express 5 wiring: `app.use(a2aRouter(exchange))` serves the JSON-RPC endpoint, the HTTP+JSON
 * routes and the public agent card, plus MCP at `/mcp` when the exchange has entity tools. Mount it before body-parsing
 * middleware such as `express.json()`: the exchange reads the body itself, strictly and under its cap.
 * @module
 */
import { Router, type Request, type RequestHandler, type Response } from 'express'
import type { AgentHost } from './agents/agent-host.js'
import type { Exchange } from './exchange/exchange.js'

export interface A2aRouterOptions {
  /** The MCP mount for the exchange's tools: its path (default `/mcp`), or false for none. */
  mcp?: false | { path?: string }
}

export function a2aRouter(exchange: Exchange, options: A2aRouterOptions = {}): Router {
  const router = Router()
  if (exchange.path !== undefined) {
    router.all(exchange.path, serving((request, response) => exchange.handle(request, response)))
  }
  if (exchange.restPath !== undefined) {
    // Route paths hold ':' (`/message:send`), which Express patterns would read as parameters.
    router.use((request, response, next) => {
      if (!exchange.servesRest(request.path)) return next()
      unbranded(response)
      exchange.handleRest(request, response).catch(next)
    })
  }
  router.all(exchange.cardPath, serving((request, response) => exchange.handleCard(request, response)))
  router.all(`${exchange.artifactsPath}/:taskId/:fileId`, serving((request, response) => exchange.handleArtifact(request, response)))
  router.all(exchange.protectedResourcePath, serving((request, response) => exchange.handleProtectedResource(request, response)))
  if (exchange.jwksPath) router.all(exchange.jwksPath, serving((request, response) => exchange.handleJwks(request, response)))
  if (exchange.tools && options.mcp !== false) router.use(mcpRouter(exchange, options.mcp?.path))
  return router
}

/** Serves only the exchange's tools over MCP Streamable HTTP (stateless), at `path` (default `/mcp`). */
export function mcpRouter(exchange: Exchange, path = '/mcp'): Router {
  if (!path.startsWith('/')) throw new Error(`MCP path "${path}" must start with "/"`)
  if (path === exchange.path || path === exchange.cardPath || exchange.servesRest(path)) throw new Error(`MCP path "${path}" is already the exchange's`)
  const handler = exchange.mcpHandler()
  if (!handler) throw new Error('mcpRouter needs an exchange created with tools')
  const router = Router()
  router.all(path, serving(handler))
  return router
}

/**
 * Serves an {@link AgentHost}: every agent under its base path (`/a2a/<id>`, its card, REST, MCP
 * and artifact routes), the index `/a2a/agents`, and the app-wide RFC 9728 metadata and JWKS
 * (the first agent's: agents of one host share their signing keys).
 */
export function agentsRouter(host: AgentHost): Router {
  const router = Router()
  router.use((request, response, next) => {
    if (request.path.startsWith(`${host.basePath}/`)) unbranded(response)
    host.handle(request, response).then((handled) => handled || next(), next)
  })
  const [first] = host.agents.values()
  router.all(first!.protectedResourcePath, serving((request, response) => first!.handleProtectedResource(request, response)))
  if (first!.jwksPath) router.all(first!.jwksPath, serving((request, response) => first!.handleJwks(request, response)))
  return router
}

/**
 * Our routes' responses never name the framework: Express sets `X-Powered-By` on every response
 * of an app that has not disabled it (generated apps do), and these routes may be mounted in one.
 */
const unbranded = (response: Response): void => response.removeHeader('X-Powered-By')

/** A route of ours: unbranded, and a rejection goes to the app's error handling. */
const serving =
  (serve: (request: Request, response: Response) => unknown): RequestHandler =>
  (request, response, next) => {
    unbranded(response)
    Promise.resolve(serve(request, response)).catch(next)
  }
