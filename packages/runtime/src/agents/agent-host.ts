/**
 * Several agents in one app, each with its own skills, card, limits and tasks, behind one
 * resolver and one store: `/a2a/<id>` (JSON-RPC), `/a2a/<id>/rest` (HTTP+JSON),
 * `/a2a/<id>/.well-known/agent-card.json`, `/a2a/<id>/mcp` and `/a2a/<id>/artifacts/…`, plus the
 * index `GET /a2a/agents` of the agents the caller may use. An agent the caller may not use
 * answers 404 on every route, exactly like an unknown id; a paused one drops out of the index,
 * serves no card, and its new tasks are born REJECTED.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { BackgroundService } from '../core/background-service.js'
import type { Principal, PrincipalResolver } from '../core/principal.js'
import { requestBaseUrl } from '../http/base-url.js'
import { createExchange, type Exchange, type ExchangeOptions } from '../exchange/exchange.js'
import { resolveCaller, unauthenticated, type Refuse } from '../http/gate.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { sendJson } from '../http/respond.js'
import { rpcRefuser } from '../jsonrpc/rpc-handler.js'
import { consoleLogger } from '../log/logger.js'
import { restRefuser } from '../rest/rest-handler.js'
import { requestPath } from '../http/request-path.js'
import { requestNote } from '../http/request-log.js'
import { MemoryStore } from '../store/memory-store.js'
import type { JobWorker, JobWorkerOptions } from '../jobs/job-worker.js'

/** One hosted agent: its id (a URL segment) and its own exchange options. */
export type AgentDefinition = { id: string } & Omit<ExchangeOptions, 'resolvePrincipal' | 'path' | 'rest' | 'agentId' | 'paused'>

export interface AgentHostOptions {
  agents: AgentDefinition[]
  /** One resolver for every agent. */
  resolvePrincipal: PrincipalResolver
  /** Options every agent shares unless it sets its own (a store, signing keys, limits…). */
  shared?: Omit<Partial<ExchangeOptions>, 'resolvePrincipal' | 'path' | 'rest' | 'agentId' | 'paused' | 'card' | 'skills' | 'tools'>
  /** Where the agents live; default `/a2a`. */
  basePath?: string
  /** Whether `principal` may use the agent; default every caller may use every agent. */
  canUse?: (principal: Principal, agentId: string) => boolean | Promise<boolean>
  /** Whether an agent is paused, besides {@link AgentHost.pause} (e.g. a switch in the app's database). */
  paused?: (agentId: string) => boolean | Promise<boolean>
}

export interface AgentIndexEntry {
  id: string
  name: string
  description: string
  cardUrl: string
}

const AGENT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/
const INDEX = 'agents'

export class AgentHost {
  readonly basePath: string
  readonly #exchanges = new Map<string, Exchange>()
  readonly #paused = new Set<string>()
  readonly #options: AgentHostOptions
  /** Principals resolved by the host, handed to the exchange's first resolve of the same request. */
  readonly #resolved = new WeakMap<IncomingMessage, Promise<Principal | null | undefined>>()

  constructor(options: AgentHostOptions) {
    if (!options.agents.length) throw new Error('createAgentHost needs at least one agent')
    this.#options = options
    this.basePath = (options.basePath ?? '/a2a').replace(/\/+$/, '')
    if (!this.basePath.startsWith('/')) throw new Error(`Agent host basePath "${this.basePath}" must start with "/"`)
    const store = options.shared?.store ?? new MemoryStore()
    for (const { id, ...agent } of options.agents) {
      if (!AGENT_ID.test(id) || id === INDEX) {
        throw new Error(`Agent id "${id}" must be lowercase letters, digits, "-" or "_" (at most 63), and not "${INDEX}"`)
      }
      if (this.#exchanges.has(id)) throw new Error(`Two agents share the id "${id}"`)
      const exchange = createExchange({
        ...options.shared,
        store,
        ...agent,
        agentId: id,
        path: `${this.basePath}/${id}`,
        resolvePrincipal: (request) => this.#principal(request),
        paused: () => this.isPaused(id),
      })
      this.#exchanges.set(id, exchange)
    }
  }

  /** The agent's exchange (for in-process calls and shutdown). */
  agent(id: string): Exchange | undefined {
    return this.#exchanges.get(id)
  }

  get agents(): ReadonlyMap<string, Exchange> {
    return this.#exchanges
  }

  /** Pauses the agent in this process: new tasks are born REJECTED; paused tasks keep their state. */
  pause(id: string): void {
    if (!this.#exchanges.has(id)) throw new Error(`No agent "${id}"`)
    this.#paused.add(id)
  }

  resume(id: string): void {
    this.#paused.delete(id)
  }

  /** Whether `principal` may use the agent (the canUse hook; without one, everyone may): for what is served outside {@link handle} (serveGrpc, the inbox). */
  canUse(principal: Principal, id: string): Promise<boolean> {
    return this.#usable(principal, id)
  }

  async isPaused(id: string): Promise<boolean> {
    return this.#paused.has(id) || Boolean(await this.#options.paused?.(id))
  }

  /** The agents `principal` may use and that are not paused, as the index lists them. */
  async index(principal: Principal, baseUrl: string): Promise<AgentIndexEntry[]> {
    const entries: AgentIndexEntry[] = []
    for (const [id, exchange] of this.#exchanges) {
      if (!(await this.#usable(principal, id)) || (await this.isPaused(id))) continue
      const card = exchange.agentCard(baseUrl)
      entries.push({ id, name: card.name, description: card.description, cardUrl: `${baseUrl}${this.basePath}/${id}${exchange.cardPath}` })
    }
    return entries
  }

  /**
   * Serves a request under {@link basePath}; resolves to false when the path is not the host's
   * (so a router passes it on).
   */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const pathname = requestPath(request)
    if (!pathname.startsWith(`${this.basePath}/`)) return false
    const [id = '', ...rest] = pathname.slice(this.basePath.length + 1).split('/')
    const sub = rest.length ? `/${rest.join('/')}` : ''
    const baseUrl = this.#baseUrl(request)
    // Refusals in the shape of the route's binding: JSON-RPC (and MCP, JSON-RPC too) at the agent's
    // own path, a google.rpc.Status on HTTP+JSON and the host's other routes (the index too).
    const refuse = id !== INDEX && (sub === '' || sub === '/mcp') ? rpcRefuser(response) : restRefuser(response)
    const principal = await this.#resolveOnce(request)
    if (principal instanceof HttpRefusal) return answered(refuse(principal.status, principal.error, principal.headers))
    if (id === INDEX && sub === '') {
      if (!principal) return this.#unauthenticated(refuse, baseUrl)
      sendJson(response, 200, { agents: await this.index(principal, baseUrl) }, { 'Cache-Control': 'private, no-store' })
      return true
    }
    const exchange = this.#exchanges.get(id)
    const note = requestNote(response)
    if (note && exchange) note.agent = id
    // Without a canUse hook every agent is for everyone: its card is as public as its options say.
    const openCard = !this.#options.canUse && exchange !== undefined && (sub === exchange.cardPath || sub === exchange.v03CardPath)
    // Otherwise anonymous callers learn nothing: 401 whether or not the id exists.
    if (!principal && !openCard) return this.#unauthenticated(refuse, baseUrl)
    if (!exchange || (principal && !(await this.#usable(principal, id)))) return notFound(response)
    if (sub === exchange.cardPath || sub === exchange.v03CardPath) {
      if (await this.isPaused(id)) return notFound(response)
      await (sub === exchange.cardPath ? exchange.handleCard(request, response) : exchange.handleV03Card(request, response))
    } else if (sub === '') {
      await exchange.handle(request, response)
    } else if (exchange.servesRest(pathname)) {
      await exchange.handleRest(request, response)
    } else if (sub.startsWith('/artifacts/')) {
      await exchange.handleArtifact(request, response)
    } else if (sub === '/mcp' && exchange.mcpHandler()) {
      await exchange.mcpHandler()!(request, response)
    } else {
      return notFound(response)
    }
    return true
  }

  /** Every agent's background work (see {@link Exchange.background}). */
  background(): BackgroundService[] {
    return [...this.#exchanges.values()].flatMap((exchange) => exchange.background())
  }

  /**
   * One job worker for every agent given jobs (its own or `shared.jobs`): each agent's jobs run on
   * its own exchange, from its own lane of the queue. See {@link Exchange.jobWorker}.
   */
  jobWorker(options?: JobWorkerOptions): JobWorker {
    const workers = this.#options.agents
      .filter((agent) => (agent.jobs ?? this.#options.shared?.jobs) !== undefined)
      .map((agent) => this.#exchanges.get(agent.id)!.jobWorker(options))
    if (workers.length === 0) throw new Error('jobWorker() needs jobs: give an agent (or shared) jobs: { queue, jobs: [...] }')
    return {
      start: async () => void (await Promise.all(workers.map((worker) => worker.start()))),
      stop: async () => void (await Promise.all(workers.map((worker) => worker.stop()))),
    }
  }

  /** Shuts every agent's exchange down (see {@link Exchange.shutdown}). */
  async shutdown(options?: { timeoutMs?: number }): Promise<void> {
    await Promise.all([...this.#exchanges.values()].map((exchange) => exchange.shutdown(options)))
  }

  async #usable(principal: Principal, id: string): Promise<boolean> {
    return this.#options.canUse ? Boolean(await this.#options.canUse(principal, id)) : true
  }

  /** The caller, or the refusal a resolver that threw stands for (503 with Retry-After while the database is out of reach). */
  #resolveOnce(request: IncomingMessage): Promise<Principal | null | undefined | HttpRefusal> {
    const resolving = (async () => this.#options.resolvePrincipal(request))().then((principal) => (principal?.owner ? principal : null))
    this.#resolved.set(request, resolving)
    return resolveCaller(() => resolving, request, this.#options.shared?.logger ?? consoleLogger)
  }

  /** The exchange's resolver: the host's answer for this request once, then the app's resolver (streams re-check). */
  #principal(request: IncomingMessage): Promise<Principal | null | undefined> {
    const resolved = this.#resolved.get(request)
    this.#resolved.delete(request)
    return resolved ?? Promise.resolve(this.#options.resolvePrincipal(request))
  }

  #baseUrl(request: IncomingMessage): string {
    const publicUrl = this.#options.agents[0]!.card.publicUrl
    return publicUrl?.replace(/\/+$/, '') ?? requestBaseUrl(request)
  }

  #unauthenticated(refuse: Refuse, baseUrl: string): true {
    const refusal = unauthenticated(baseUrl)
    return answered(refuse(refusal.status, refusal.error, refusal.headers))
  }
}

/** A refusal was sent: the request was the host's. */
const answered = (_sent: undefined): true => true

function notFound(response: ServerResponse): true {
  sendJson(response, 404, { error: 'No such agent' })
  return true
}

export function createAgentHost(options: AgentHostOptions): AgentHost {
  return new AgentHost(options)
}
