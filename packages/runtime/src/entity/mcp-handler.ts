/**
 * The tool registry over MCP Streamable HTTP, stateless: every POST gets a fresh MCP server bound
 * to the caller the request resolved to, so no state crosses requests or users and any replica
 * serves any request. The gates match /a2a: POST only, browser Origin, principal, body cap.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Principal, PrincipalResolver } from '../core/principal.js'
import { requestBaseUrl } from '../http/base-url.js'
import { bearerChallenge } from '../http/bearer-challenge.js'
import { normalizeOrigin, originAllowed } from '../http/origin.js'
import { bodyRefusal, readBody } from '../http/read-body.js'
import { sendJson } from '../http/respond.js'
import { resolveCaller } from '../http/gate.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { consoleLogger, scrub, type Logger } from '../log/logger.js'
import { checkBodyText, checkJsonLimits, DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../wire/limits.js'
import { A2AError } from '../wire/a2a-error.js'
import { ToolError, type EntityTool } from './entity-tool.js'
import type { ToolRegistry } from './tool-registry.js'

export interface McpHandlerOptions {
  registry: ToolRegistry
  /** The same resolver /a2a uses; a request it cannot resolve gets 401. */
  resolvePrincipal: PrincipalResolver
  /** Browser origins admitted besides the request's own. */
  allowedOrigins?: string[]
  /** Request body cap in bytes; default 1 MiB. */
  maxBodyBytes?: number
  /** Longest pause in a request body before 408; default 30 s. */
  bodyIdleTimeoutMs?: number
  /** Depth and string rules applied to tool arguments; default DEFAULT_REQUEST_LIMITS. */
  requestLimits?: RequestLimits
  /** Server name and version reported to MCP clients on initialize. */
  name: string
  version: string
  /** Base URL of the RFC 9728 metadata the 401 challenge names; else the request's own. */
  publicUrl?: string
  logger?: Logger
}

export type McpHttpHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>

/** JSON-RPC "server error", what the SDK's transport answers its own HTTP refusals with. */
const TRANSPORT_ERROR = -32000

function refuse(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) {
  sendJson(response, status, { jsonrpc: '2.0', id: null, error: { code, message } }, headers)
}

interface McpSdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport
  schemas: typeof import('@modelcontextprotocol/sdk/types.js')
}

let mcpSdk: Promise<McpSdk> | undefined
/**
 * The MCP SDK, with the zod schemas, ajv and zod-to-json-schema it brings (~25 MiB RSS), loads
 * when an MCP endpoint is made, not with the runtime: an app that serves no MCP never loads it.
 */
const loadMcpSdk = (): Promise<McpSdk> =>
  (mcpSdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, http, schemas]) => ({ Server: server.Server, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport, schemas })))

export function createMcpHandler(options: McpHandlerOptions): McpHttpHandler {
  // Started now so the first MCP request does not wait for it; a failure surfaces on that request.
  loadMcpSdk().catch(() => {})
  const { registry, resolvePrincipal } = options
  const logger = options.logger ?? consoleLogger
  const bodyLimits = { maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024, bodyIdleTimeoutMs: options.bodyIdleTimeoutMs ?? 30_000 }
  const limits = options.requestLimits ?? DEFAULT_REQUEST_LIMITS
  const allowed = new Set(
    (options.allowedOrigins ?? []).map((origin) => {
      const normalized = normalizeOrigin(origin)
      if (!normalized) throw new Error(`allowedOrigins entry "${origin}" is not an origin like https://app.example.com`)
      return normalized
    }),
  )

  return async (request, response) => {
    if (request.method !== 'POST') {
      // Stateless: no GET stream to resume and no session to DELETE.
      return refuse(response, 405, TRANSPORT_ERROR, 'The MCP endpoint takes JSON-RPC requests by POST', { Allow: 'POST' })
    }
    if (!originAllowed(request.headers, allowed)) {
      return refuse(response, 403, TRANSPORT_ERROR, `Origin ${JSON.stringify(request.headers.origin)} may not call this server from a browser`)
    }
    const principal = await resolveCaller(resolvePrincipal, request, logger)
    if (principal instanceof HttpRefusal) return refuse(response, principal.status, principal.error.code, principal.error.message, principal.headers)
    if (!principal || typeof principal.owner !== 'string' || principal.owner === '') {
      return refuse(response, 401, TRANSPORT_ERROR, 'Authentication required: send credentials this server accepts', {
        'WWW-Authenticate': bearerChallenge(options.publicUrl ?? requestBaseUrl(request)),
      })
    }
    let message = parsedAlready(request)
    if (message === undefined) {
      const body = await readBody(request, bodyLimits).catch(() => undefined)
      if (!body) return
      if ('tooLarge' in body || 'stalled' in body) {
        const refusal = bodyRefusal(body, bodyLimits)
        return refuse(response, refusal.status, TRANSPORT_ERROR, refusal.message, { Connection: 'close' })
      }
      try {
        // Tool arguments sit two levels below the message: a deeper nest is refused before parsing it.
        if ('text' in body) checkBodyText(body.text, limits, 2, false)
      } catch (error) {
        if (error instanceof A2AError) return sendJson(response, 200, invalidParamsAnswer(null, error))
        throw error
      }
      try {
        if ('notUtf8' in body) throw new Error('not UTF-8')
        message = JSON.parse(body.text)
      } catch {
        return refuse(response, 400, -32700, 'Parse error: the body is not valid JSON')
      }
    }
    // Tool arguments meet the limits and string rules of /a2a before the SDK or a tool sees them.
    const invalid = invalidToolCall(message, limits)
    if (invalid) return sendJson(response, 200, invalid)

    try {
      const sdk = await loadMcpSdk()
      const server = mcpServer(sdk, registry, principal, options.name, options.version, sentArguments(message))
      const transport = new sdk.StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      response.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(request, response, message)
    } catch (error) {
      logger.error(`a2a: MCP request failed: ${scrub(error)}`)
      if (!response.headersSent) refuse(response, 500, -32603, 'Internal error')
      else response.end()
    }
  }
}

/**
 * An MCP server for one request, acting as `principal` throughout. The registry validates the
 * arguments as sent: the SDK's parsed copy drops keys such as `__proto__`, which /a2a refuses.
 */
function mcpServer(sdk: McpSdk, registry: ToolRegistry, principal: Principal, name: string, version: string, sent: unknown): Server {
  const server = new sdk.Server({ name, version }, { capabilities: { tools: {} } })
  server.setRequestHandler(sdk.schemas.ListToolsRequestSchema, () => ({ tools: registry.list(principal).map(toMcpTool) }))
  server.setRequestHandler(sdk.schemas.CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    try {
      const result = await registry.call(request.params.name, sent ?? request.params.arguments ?? {}, { principal, signal: extra.signal })
      return {
        content: [{ type: 'text', text: JSON.stringify(result ?? null) }],
        ...(isPlainObject(result) ? { structuredContent: result } : {}),
      }
    } catch (error) {
      // The registry maps every failure to a ToolError; anything else is a bug, answered generically.
      const text = error instanceof ToolError ? error.message : `${request.params.name} failed`
      return { isError: true, content: [{ type: 'text', text }] }
    }
  })
  return server
}

function toMcpTool(tool: EntityTool): Tool {
  const reads = tool.operation === 'list' || tool.operation === 'get'
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    annotations: { readOnlyHint: reads, destructiveHint: tool.operation === 'delete', idempotentHint: tool.operation !== 'create', openWorldHint: false },
  }
}

/**
 * The -32602 answer for a `tools/call` whose arguments are not an object (or absent), break a
 * request limit or hold a key such as `__proto__`; undefined for anything else, which the SDK handles.
 */
function invalidToolCall(message: unknown, limits: RequestLimits): unknown {
  if (!isPlainObject(message) || message.method !== 'tools/call' || !isPlainObject(message.params)) return undefined
  const args = message.params.arguments
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null
  const refuse = (error: A2AError) => invalidParamsAnswer(id, error)
  if (args !== undefined && !isPlainObject(args)) {
    const kind = args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args
    return refuse(A2AError.invalidParams('params.arguments', `must be an object holding the tool's arguments (or left out), not ${kind}`))
  }
  try {
    checkJsonLimits(args, limits, 'params.arguments')
  } catch (error) {
    if (error instanceof A2AError) return refuse(error)
    throw error
  }
  return undefined
}

const invalidParamsAnswer = (id: string | number | null, error: A2AError) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32602, message: error.message, data: { fieldViolations: error.fieldViolations } },
})

/** The arguments object of a single `tools/call` message, as parsed from the body. */
function sentArguments(message: unknown): unknown {
  return isPlainObject(message) && message.method === 'tools/call' && isPlainObject(message.params) ? message.params.arguments : undefined
}

/** A body express.json() (or similar) already parsed: MCP has no stricter decoding to insist on, so use it. */
function parsedAlready(request: IncomingMessage): unknown {
  const body = (request as { body?: unknown }).body
  return request.readableEnded && body !== undefined ? body : undefined
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
