/**
 * The exchange: skills, store, limits and identity wired into the A2A v1.0 methods. Mount it
 * with `@a2a-agent/runtime/express`, or call {@link Exchange.handle} from any Node HTTP server.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { viewerOf, type Principal } from '../auth/principal.js'
import { buildAgentCard, DEFAULT_OUTPUT_MODES } from '../card/agent-card.js'
import { AGENT_CARD_PATH, createCardHandler } from '../card/card-handler.js'
import { handleRpc } from '../http/rpc-handler.js'
import { normalizeOrigin } from '../http/origin.js'
import { entitySkills } from '../entity/entity-skills.js'
import { createMcpHandler, type McpHttpHandler } from '../entity/mcp-handler.js'
import type { ToolRegistry } from '../entity/tool-registry.js'
import { consoleLogger } from '../log/logger.js'
import { PushDispatcher } from '../push/push-dispatcher.js'
import { RunSlots } from '../run/run-slots.js'
import type { Skill } from '../skills/skill.js'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { StreamSeats } from '../stream/stream-seats.js'
import { TaskEvents } from '../stream/task-events.js'
import type { AgentCapabilities, AgentCard } from '../wire/types.js'
import type { ExchangeCore } from './core.js'
import { methodTable, unknownMethod, type MethodHandler } from './methods.js'
import type { Caller } from './send-message.js'
import { orDefault, type ExchangeOptions } from './options.js'

export type { ExchangeOptions }


const MiB = 1024 * 1024

export class Exchange {
  readonly path: string
  readonly cardPath = AGENT_CARD_PATH
  /** The entity tool registry, when the exchange was given one (the MCP mount serves it). */
  readonly tools: ToolRegistry | undefined
  #mcp: McpHttpHandler | undefined
  readonly #core: ExchangeCore
  readonly #methods: Record<string, MethodHandler>
  readonly #options: ExchangeOptions
  readonly #allowedOrigins: ReadonlySet<string>
  readonly #serveCard: (request: IncomingMessage, response: ServerResponse) => void

  constructor(options: ExchangeOptions) {
    if (typeof options.resolvePrincipal !== 'function') {
      throw new Error('createExchange needs resolvePrincipal: the exchange serves no anonymous callers')
    }
    const derived = options.tools && !options.disableEntitySkills ? entitySkills(options.tools) : []
    if (!options.skills?.length && !derived.length) throw new Error('createExchange needs at least one skill (or tools that provide entity skills)')
    const skills = new Map<string, Skill>()
    for (const skill of (options.skills ?? []).map(defineSkill)) {
      if (skills.has(skill.id)) throw new Error(`Two skills share the id "${skill.id}"; skill ids must be unique`)
      skills.set(skill.id, skill)
    }
    for (const skill of derived.map(defineSkill)) {
      if (skills.has(skill.id)) {
        throw new Error(`Skill id "${skill.id}" is also the derived skill of an entity's tools; rename the skill or set disableEntitySkills`)
      }
      skills.set(skill.id, skill)
    }
    this.tools = options.tools
    this.path = options.path ?? '/a2a'
    if (!this.path.startsWith('/')) throw new Error(`Exchange path "${this.path}" must start with "/"`)
    this.#allowedOrigins = new Set(
      (options.allowedOrigins ?? []).map((origin) => {
        const normalized = normalizeOrigin(origin)
        if (!normalized) throw new Error(`allowedOrigins entry "${origin}" is not an origin like https://app.example.com`)
        return normalized
      }),
    )
    this.#options = options
    const store = options.store ?? new MemoryStore()
    const logger = options.logger ?? consoleLogger
    const push = options.pushNotifications !== false && {
      allowPrivate: options.allowPrivatePush ?? false,
      maxPerTask: orDefault(options.maxPushConfigsPerTask, 8),
    }
    const pushContext = push && { store, logger, allowPrivate: push.allowPrivate }
    const dispatcher = pushContext ? (options.pushDelivery?.attach(pushContext) ?? new PushDispatcher(pushContext)) : undefined
    this.#core = {
      store,
      skills,
      // Every stored event also goes to the task's push configs.
      events: new TaskEvents(dispatcher && ((event) => void dispatcher.notify(event))),
      runs: new Map(),
      slots: new RunSlots(orDefault(options.maxConcurrentRunsPerOwner, 16)),
      logger,
      limits: {
        taskTimeoutMs: orDefault(options.taskTimeoutMs, 5 * 60_000),
        settledRetention: orDefault(options.settledTaskRetention, 64),
        pausedRetention: orDefault(options.pausedTaskRetention, 64),
      },
      acceptUrlParts: options.acceptUrlParts ?? false,
      defaultOutputModes: options.card.defaultOutputModes ?? DEFAULT_OUTPUT_MODES,
      accepting: new Map(),
      closing: false,
      ...(dispatcher ? { push: dispatcher } : {}),
    }
    const extendedCard = options.extendedCard
    const streaming = options.streaming !== false && {
      seats: new StreamSeats(orDefault(options.maxStreamSeatsPerOwner, 16), options.streamSeatOverflow ?? 'refuse'),
      keepAliveMs: orDefault(options.streamKeepAliveMs, 15_000),
      pollMs: orDefault(options.streamPollMs, 1000),
    }
    this.#methods = methodTable({
      extendedCard: extendedCard && ((caller) => extendedCard(caller.principal)),
      streaming: streaming || undefined,
      push: push || undefined,
    })
    this.#serveCard = createCardHandler((base) => this.agentCard(base), options.card.publicUrl?.replace(/\/+$/, ''), options.card.maxAgeSeconds ?? 300)
  }

  /** The capabilities this server serves, exactly as the card declares them. */
  get capabilities(): AgentCapabilities {
    return {
      streaming: this.#options.streaming !== false,
      pushNotifications: this.#options.pushNotifications !== false,
      ...(this.#options.extendedCard ? { extendedAgentCard: true } : {}),
      ...(this.#options.extensions?.length ? { extensions: this.#options.extensions } : {}),
    }
  }

  /** The public card for callers reaching this server at `baseUrl` (scheme://host[:port]). */
  agentCard(baseUrl: string): AgentCard {
    return buildAgentCard(this.#options.card, this.#core.skills.values(), `${baseUrl}${this.path}`, this.capabilities)
  }

  /**
   * Invokes a method in-process as `principal`; throws {@link A2AError} as the wire would answer.
   * Streaming methods answer a {@link StreamReply} for an SSE writer.
   */
  async call(principal: Principal, method: string, params: unknown = {}, reresolve?: Caller['reresolve']): Promise<unknown> {
    const handler = Object.hasOwn(this.#methods, method) ? this.#methods[method] : undefined
    if (!handler) throw unknownMethod(method, Object.keys(this.#methods))
    return handler(this.#core, { principal, viewer: viewerOf(principal), ...(reresolve ? { reresolve } : {}) }, params)
  }

  /** Serves the JSON-RPC endpoint on a Node request (Express, node:http, …). */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    return handleRpc(
      {
        resolvePrincipal: this.#options.resolvePrincipal,
        allowedOrigins: this.#allowedOrigins,
        maxBodyBytes: this.#options.maxBodyBytes ?? MiB,
        assumeVersionWhenAbsent: this.#options.assumeVersionWhenAbsent,
        extensions: this.#options.extensions ?? [],
        logger: this.#core.logger,
        call: (principal, method, params, reresolve) => this.call(principal, method, params, reresolve),
      },
      request,
      response,
    )
  }

  /**
   * Serves the tool registry over MCP Streamable HTTP with this exchange's resolver, origins, body
   * cap and logger; undefined without `tools`.
   */
  mcpHandler(): McpHttpHandler | undefined {
    if (!this.tools) return undefined
    this.#mcp ??= createMcpHandler({
      registry: this.tools,
      resolvePrincipal: this.#options.resolvePrincipal,
      allowedOrigins: [...this.#allowedOrigins],
      maxBodyBytes: this.#options.maxBodyBytes ?? MiB,
      name: this.#options.card.name,
      version: this.#options.card.version,
      logger: this.#core.logger,
    })
    return this.#mcp
  }

  /** Serves `/.well-known/agent-card.json`. */
  handleCard(request: IncomingMessage, response: ServerResponse): void {
    this.#serveCard(request, response)
  }

  /** Runs in flight (started, not yet settled or paused). */
  get activeRuns(): number {
    return this.#core.runs.size
  }

  /**
   * Stops claiming runs (sends answer -32004), cuts every live run and stores it CANCELED, and
   * resolves once all have settled or `timeoutMs` passes. Reads keep answering.
   */
  async shutdown({ timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<void> {
    this.#core.closing = true
    const runs = [...this.#core.runs.values()]
    const settled = Promise.all(runs.map(async (run) => {
      await run.cut()
      await run.done
    }))
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
    // The final states are notified too, within the same deadline.
    await Promise.race([settled.then(() => this.#core.push?.idle()), deadline])
    clearTimeout(timer)
  }
}

export function createExchange(options: ExchangeOptions): Exchange {
  return new Exchange(options)
}

