/**
 * The one route table of the runtime's HTTP surface, shared by both mounts: {@link a2aListener}
 * (straight from `node:http`) and `a2aRouter` / `agentsRouter` (inside Express). Matching is a
 * string compare on the request's path, so it costs next to nothing before the handler runs.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { AgentHost } from '../agents/agent-host.js'
import type { Exchange } from '../exchange/exchange.js'
import { restErrorBody } from '../rest/rest-errors.js'
import { refusalOf } from '../http/refusal-of.js'
import { requestPath } from '../http/request-path.js'
import { sendJson } from '../http/respond.js'

export interface A2aRoutesOptions {
  /**
   * The MCP mount for entity tools: its path (default `/mcp`), or false for none. An exchange with
   * tools serves it by default. With an {@link AgentHost}, each agent already serves its tools at
   * `<basePath>/<id>/mcp`; `agent` names the one whose tools the app-wide path serves as well.
   */
  mcp?: false | { path?: string; agent?: string }
}

/** Serves one matched request; a rejection is the handler's failure, not the caller's. */
export type Serve = (request: IncomingMessage, response: ServerResponse) => Promise<unknown>

/** The handler for a request the runtime serves, or undefined when the request is the app's. */
export type A2aRoutes = (request: IncomingMessage) => Serve | undefined

export function a2aRoutes(target: Exchange | AgentHost, options: A2aRoutesOptions = {}): A2aRoutes {
  if (target instanceof AgentHost) return hostRoutes(target, options)
  if (options.mcp && options.mcp.agent !== undefined) throw new Error('mcp.agent names an agent of an AgentHost; an exchange serves its own tools')
  const exact = exchangeRoutes(target)
  const mcp = target.tools && options.mcp !== false ? mcpRoute(target, options.mcp?.path) : undefined
  if (mcp) exact.set(mcp.path, mcp.serve)
  const rest: Serve = async (request, response) => target.handleRest(request, response)
  const artifact: Serve = async (request, response) => target.handleArtifact(request, response)
  return (request) => {
    const path = pathOf(request)
    return exact.get(trimmed(path)) ?? (target.servesRest(path) ? rest : isArtifactPath(path, target.artifactsPath) ? artifact : undefined)
  }
}

/** The MCP route of an exchange with tools, at `path` (default `/mcp`), checked against its other routes; `path` as routes match it. */
export function mcpRoute(exchange: Exchange, path = '/mcp'): { path: string; serve: Serve } {
  if (!path.startsWith('/')) throw new Error(`MCP path "${path}" must start with "/"`)
  // Compared as routes match them: `/a2a/` is the JSON-RPC route `/a2a`, and would replace it.
  if (exchange.path !== undefined && trimmed(path) === trimmed(exchange.path)) {
    throw new Error(`MCP path "${path}" is the exchange's JSON-RPC path "${exchange.path}"; give MCP a path of its own (default /mcp)`)
  }
  if (trimmed(path) === exchange.cardPath || exchange.servesRest(path)) throw new Error(`MCP path "${path}" is already the exchange's`)
  const handler = exchange.mcpHandler()
  if (!handler) throw new Error('an MCP mount needs an exchange created with tools')
  return { path: trimmed(path), serve: handler }
}

/** The exchange's fixed paths: JSON-RPC, card, RFC 9728 metadata and (signed cards) JWKS. */
function exchangeRoutes(exchange: Exchange): Map<string, Serve> {
  const routes = new Map<string, Serve>()
  // Keyed as requests are matched (one trailing slash dropped): a path configured as `/a2a/` is served too.
  if (exchange.path !== undefined) routes.set(trimmed(exchange.path), (request, response) => exchange.handle(request, response))
  routes.set(exchange.cardPath, (request, response) => exchange.handleCard(request, response))
  if (exchange.v03CardPath) routes.set(exchange.v03CardPath, (request, response) => exchange.handleV03Card(request, response))
  routes.set(exchange.protectedResourcePath, async (request, response) => exchange.handleProtectedResource(request, response))
  if (exchange.jwksPath) routes.set(exchange.jwksPath, async (request, response) => exchange.handleJwks(request, response))
  return routes
}

/**
 * Everything under the host's base path, plus the app-wide metadata and JWKS of its first agent
 * (agents of one host share their signing keys).
 */
function hostRoutes(host: AgentHost, options: A2aRoutesOptions): A2aRoutes {
  const [first] = host.agents.values()
  const exact = new Map<string, Serve>([[first!.protectedResourcePath, async (request, response) => first!.handleProtectedResource(request, response)]])
  if (first!.jwksPath) exact.set(first!.jwksPath, async (request, response) => first!.handleJwks(request, response))
  if (options.mcp && options.mcp.agent !== undefined) {
    const agent = host.agent(options.mcp.agent)
    if (!agent) throw new Error(`mcp.agent "${options.mcp.agent}" is not an agent of this host (${[...host.agents.keys()].join(', ')})`)
    const mcp = mcpRoute(agent, options.mcp.path)
    exact.set(mcp.path, mcp.serve)
  }
  const prefix = `${host.basePath}/`
  const hosted: Serve = (request, response) => host.handle(request, response)
  return (request) => {
    const path = pathOf(request)
    return path.startsWith(prefix) ? hosted : exact.get(trimmed(path))
  }
}

/**
 * The last resort's first check, on either mount: a refusal (or a store out of reach) that escaped
 * its handler is still answered as what it is, e.g. 503 with Retry-After, in a google.rpc.Status
 * body; true once answered. Handlers answer their own in their binding's shape: this is a guard.
 */
export function answeredRefusal(response: ServerResponse, error: unknown): boolean {
  const refusal = response.headersSent ? undefined : refusalOf(error)
  if (!refusal) return false
  sendJson(response, refusal.status, restErrorBody(refusal.error, refusal.status), refusal.headers)
  return true
}

/** The request's path as routes are matched: no query, one trailing slash dropped. */
export const routePath = (request: IncomingMessage): string => trimmed(pathOf(request))

const pathOf = requestPath

/** One trailing slash is the same route, as Express's default (non-strict) routing has it. */
const trimmed = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)

/** `<artifactsPath>/<taskId>/<fileId>`: two non-empty segments. */
function isArtifactPath(path: string, base: string): boolean {
  if (!path.startsWith(`${base}/`)) return false
  const [taskId, fileId, ...more] = trimmed(path)
    .slice(base.length + 1)
    .split('/')
  return Boolean(taskId && fileId) && more.length === 0
}
