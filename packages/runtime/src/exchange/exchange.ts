/**
 * The exchange: skills, store, limits and identity wired into the A2A v1.0 methods. Mount it
 * with `@a2a-agent/runtime/express`, or call {@link Exchange.handle} from any Node HTTP server.
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { canSee, tierOf, viewerOf, type Principal, type Viewer } from '../core/principal.js'
import type { ArtifactFile } from '../core/artifact-files.js'
import { agentInterfaces, buildAgentCard, DEFAULT_OUTPUT_MODES, skillToCard } from '../card/agent-card.js'
import { AGENT_CARD_PATH, createCardHandler } from '../card/card-handler.js'
import { CardSigner, JWKS_PATH } from '../card/card-signing.js'
import { createDocumentHandler, protectedResourceMetadata } from '../card/protected-resource.js'
import { bearerChallenge, PROTECTED_RESOURCE_PATH } from '../http/bearer-challenge.js'
import { parseSigningKeys } from '../card/signing-keys.js'
import type { GateOptions } from '../http/gate.js'
import { handleRpc } from '../jsonrpc/rpc-handler.js'
import { sendJson } from '../http/respond.js'
import { handleRest } from '../rest/rest-handler.js'
import { normalizeOrigin } from '../http/origin.js'
import { requestPath } from '../http/request-path.js'
import { entitySkillDescriptions, entitySkills } from '../entity/entity-skills.js'
import { createMcpHandler, type McpHttpHandler } from '../entity/mcp-handler.js'
import type { ToolRegistry } from '../entity/tool-registry.js'
import { consoleLogger } from '../log/logger.js'
import { PushDispatcher } from '../push/push-dispatcher.js'
import { createArtifactHandler } from '../http/artifact-handler.js'
import { MemoryArtifactFiles } from '../core/artifact-files.js'
import { INLINE_ARTIFACT_BYTES } from '../artifacts/offload.js'
import { MemoryCounters } from '../core/counters.js'
import { Quota } from '../limits/quota.js'
import { RunLeases } from '../run/leases.js'
import { deferBackground, type BackgroundService } from '../core/background-service.js'
import { RemoteWrites } from '../run/remote-writes.js'
import { RunSlots } from '../run/run-slots.js'
import { TrimPacing } from '../run/trim-pacing.js'
import type { Skill } from '../skills/skill.js'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { capabilityOf } from '../store/capabilities.js'
import { StreamSeats } from '../stream/stream-seats.js'
import { TaskEvents } from '../run/task-events.js'
import { requestLimits, type RequestLimits } from '../wire/limits.js'
import type { AgentCapabilities, AgentCard, AgentInterface, AgentSkill } from '../wire/types.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { createCall } from '../methods/call.js'
import type { Call, Caller } from '../methods/method.js'
import { methodTable } from '../methods/method-table.js'
import { orDefault, type ExchangeOptions, type ExtendedSkills } from './options.js'
import { createJobWorker, type JobWorker, type JobWorkerOptions } from '../jobs/job-worker.js'
import { jobSetup } from '../run/enqueue-job.js'
import { cardToV03, V03_CARD_PATH } from '../compat-v03/card-v03.js'
import { wantsV03Card } from '../compat-v03/version-v03.js'

export type { ExchangeOptions, ExtendedSkills }

const MiB = 1024 * 1024

export class Exchange {
  /** The JSON-RPC endpoint; undefined when that binding is turned off. */
  readonly path: string | undefined
  /** The base of the HTTP+JSON routes (`/message:send`, `/tasks/{id}`, …); undefined when turned off. */
  readonly restPath: string | undefined
  readonly cardPath = AGENT_CARD_PATH
  /** The A2A 0.3 card (`/.well-known/agent.json`); undefined unless `compat.v03` is on. */
  readonly v03CardPath: string | undefined
  /** Served when the card is signed. */
  readonly jwksPath: string | undefined
  readonly protectedResourcePath = PROTECTED_RESOURCE_PATH
  /** Artifact files are served under this path: `<path>/artifacts/<taskId>/<fileId>`. */
  readonly artifactsPath: string
  /** The entity tool registry, when the exchange was given one (the MCP mount serves it). */
  readonly tools: ToolRegistry | undefined
  #mcp: McpHttpHandler | undefined
  readonly #core: ExchangeCore
  readonly #leases: RunLeases
  /** The methods, as every binding and {@link Exchange.call} reach them. */
  readonly #call: Call
  readonly #options: ExchangeOptions
  readonly #requestLimits: RequestLimits
  readonly #bodyLimits: { maxBodyBytes: number; bodyIdleTimeoutMs: number }
  readonly #allowedOrigins: ReadonlySet<string>
  #serveCard!: (request: IncomingMessage, response: ServerResponse) => Promise<void>
  #serveV03Card!: ((request: IncomingMessage, response: ServerResponse) => Promise<void>) | undefined
  /** Fresh card handlers (their caches empty): the cards change when a binding is listed or taken off. */
  readonly #renewCardHandlers: () => void
  readonly #serveJwks: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
  readonly #serveProtectedResource: (request: IncomingMessage, response: ServerResponse) => void
  readonly #serveArtifact: (request: IncomingMessage, response: ServerResponse) => Promise<void>
  readonly #signer: CardSigner | undefined
  readonly #publicUrl: string | undefined
  /** Bindings served beside this module's HTTP ones (serveGrpc), each listed on the card. */
  readonly #listed = new Set<(baseUrl: string) => AgentInterface>()

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
    const path = options.path ?? '/a2a'
    if (!path.startsWith('/')) throw new Error(`Exchange path "${path}" must start with "/"`)
    const restPath = options.rest === false ? undefined : ((options.rest === true ? undefined : options.rest?.path) ?? `${path.replace(/\/+$/, '')}/rest`)
    if (restPath !== undefined && (!restPath.startsWith('/') || restPath.endsWith('/'))) {
      throw new Error(`REST path "${restPath}" must start with "/" and not end with one`)
    }
    if (options.jsonRpc === false && restPath === undefined) throw new Error('jsonRpc and rest are both off: the exchange would serve no binding')
    this.path = options.jsonRpc === false ? undefined : path
    if (options.compat?.v03 && this.path === undefined) throw new Error('compat.v03 serves A2A 0.3 over JSON-RPC: it needs the JSON-RPC binding (jsonRpc is false)')
    this.v03CardPath = options.compat?.v03 ? V03_CARD_PATH : undefined
    this.restPath = restPath
    this.#allowedOrigins = new Set(
      (options.allowedOrigins ?? []).map((origin) => {
        const normalized = normalizeOrigin(origin)
        if (!normalized) throw new Error(`allowedOrigins entry "${origin}" is not an origin like https://app.example.com`)
        return normalized
      }),
    )
    this.#options = options
    this.#signer = options.signingKeys === undefined ? undefined : new CardSigner(parseSigningKeys(options.signingKeys))
    this.jwksPath = this.#signer && JWKS_PATH
    this.#publicUrl = options.card.publicUrl?.replace(/\/+$/, '')
    this.#requestLimits = requestLimits(options.requestLimits)
    this.#bodyLimits = { maxBodyBytes: orDefault(options.maxBodyBytes, MiB), bodyIdleTimeoutMs: orDefault(options.bodyIdleTimeoutMs, 30_000) }
    const store = options.store ?? new MemoryStore()
    const logger = options.logger ?? consoleLogger
    const replica = options.replicaId ?? randomUUID()
    const taskTimeoutMs = orDefault(options.taskTimeoutMs, 5 * 60_000)
    const leaseMs = orDefault(options.runLeaseMs, 30_000)
    // Shared by the replicas on one database (PostgresStore's), or the app's own; absent: counted per process.
    const sharedCounters = options.limitCounters ?? capabilityOf(store, 'counters')?.counters
    const pushHints = capabilityOf(store, 'pushHints')
    const push = options.pushNotifications !== false && {
      allowPrivate: options.allowPrivatePush ?? false,
      maxPerTask: orDefault(options.maxPushConfigsPerTask, 8),
    }
    const pushContext = push && { store, logger, allowPrivate: push.allowPrivate }
    const dispatcher = pushContext ? (options.pushDelivery?.attach(pushContext) ?? new PushDispatcher(pushContext)) : undefined
    this.#core = {
      store,
      skills,
      // Every stored event also goes to the task's push configs, but for the many tasks a store
      // can tell at once have none: no delivery (built in or the app's) then looks them up.
      events: new TaskEvents(dispatcher && ((event) => void (pushHints?.noPushConfigsFor(event.taskId, event.version) || dispatcher.notify(event)))),
      runs: new Map(),
      trims: new TrimPacing(),
      retaining: new Set(),
      // Counted for the whole agent with shared counters; an entry no one released outlives no run.
      slots: new RunSlots(orDefault(options.maxConcurrentRunsPerOwner, 16), sharedCounters && { counters: sharedCounters, replica, ttlMs: taskTimeoutMs + leaseMs, logger }),
      artifacts: {
        files: capabilityOf(store, 'artifactFiles')?.artifactFiles ?? new MemoryArtifactFiles(),
        inlineBytes: orDefault(options.maxInlineArtifactBytes, INLINE_ARTIFACT_BYTES),
        // Under the JSON-RPC path even when that binding is off: files are a route of their own.
        path,
        taskExists: async (id) => (await store.get(id)) !== undefined,
        lastSweep: 0,
      },
      ...(options.agentId === undefined ? {} : { viewerOf: agentViewer(options.agentId), agentId: options.agentId }),
      ...(options.paused ? { paused: options.paused } : {}),
      agentName: options.card.name,
      quota: new Quota({
        turnsPerHour: orDefault(options.maxTurnsPerHour, -1),
        turnsPer: options.turnLimitPer ?? 'owner',
        occupiedPerTenant: orDefault(options.maxOccupiedTasksPerTenant, -1),
        // A run never outlives its deadline; a place left by a process that died expires soon after.
        occupancyTtlMs: taskTimeoutMs + 60_000,
        counters: sharedCounters ?? new MemoryCounters(),
        logger,
      }),
      logger,
      limits: {
        taskTimeoutMs,
        settledRetention: orDefault(options.settledTaskRetention, 64),
        pausedRetention: orDefault(options.pausedTaskRetention, 64),
        listTasksBytes: orDefault(options.maxListTasksBytes, MiB),
      },
      replica,
      leaseMs,
      acceptUrlParts: options.acceptUrlParts ?? false,
      defaultOutputModes: options.card.defaultOutputModes ?? DEFAULT_OUTPUT_MODES,
      accepting: new Map(),
      closing: false,
      ...(dispatcher ? { push: dispatcher } : {}),
      ...(options.jobs ? { jobs: jobSetup(options.jobs) } : {}),
    }
    const streaming = options.streaming !== false && {
      seats: new StreamSeats(orDefault(options.maxStreamSeatsPerOwner, 16), options.streamSeatOverflow ?? 'refuse'),
      ...(options.maxStreamsPerKey && options.maxStreamsPerKey > 0 ? { keySeats: new StreamSeats(options.maxStreamsPerKey, 'refuse') } : {}),
      keepAliveMs: orDefault(options.streamKeepAliveMs, 15_000),
      pollMs: orDefault(options.streamPollMs, 1000),
    }
    this.#leases = new RunLeases(this.#core)
    this.#leases.start()
    // Start-up sweep included, tasks a stopped process left are settled within a lease; under
    // serve() only by the roles that run background work, so the sweep waits for serve()'s start.
    if (!deferBackground(this.#leases.sweeper) && options.background !== 'manual') this.#leases.sweeper.start()
    this.#core.remote = new RemoteWrites(this.#core)
    this.#core.remote.start()
    const methods = methodTable({
      extendedCard: options.extendedCard && ((caller, baseUrl) => this.extendedCard(caller.principal, baseUrl)),
      streaming: streaming || undefined,
      push: push || undefined,
    })
    this.#call = createCall(this.#core, methods, this.#requestLimits, this.#publicUrl)
    this.artifactsPath = `${path}/artifacts`
    this.#serveArtifact = createArtifactHandler({
      path,
      resolvePrincipal: options.resolvePrincipal,
      store,
      files: this.#core.artifacts!.files,
      viewerOf: this.#core.viewerOf ?? viewerOf,
      publicUrl: this.#publicUrl,
      logger,
    })
    const maxAge = options.card.maxAgeSeconds ?? 300
    const gate = options.card.access === 'authenticated' && {
      authenticated: async (request: IncomingMessage) => Boolean((await options.resolvePrincipal(request))?.owner),
      challenge: bearerChallenge,
    }
    // With a 0.3 card beside it, which card a request gets depends on its A2A-Version.
    const varyOn = this.v03CardPath ? 'A2A-Version' : undefined
    this.#renewCardHandlers = () => {
      this.#serveCard = createCardHandler((base) => this.signedCard(base), this.#publicUrl, maxAge, gate || undefined, varyOn)
      this.#serveV03Card = varyOn ? createCardHandler((base) => this.v03Card(base), this.#publicUrl, maxAge, gate || undefined, varyOn) : undefined
    }
    this.#renewCardHandlers()
    const signer = this.#signer
    this.#serveJwks = signer && createDocumentHandler(() => signer.jwks, this.#publicUrl, maxAge)
    this.#serveProtectedResource = createDocumentHandler(
      (base) =>
        protectedResourceMetadata(base, options.protectedResource ?? {}, {
          name: options.card.name,
          ...(options.card.documentationUrl ? { documentationUrl: options.card.documentationUrl } : {}),
          ...(this.jwksPath ? { jwksUrl: `${base}${this.jwksPath}` } : {}),
        }),
      this.#publicUrl,
      maxAge,
    )
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

  /** The public card for callers reaching this server at `baseUrl` (scheme://host[:port]), unsigned. */
  agentCard(baseUrl: string): AgentCard {
    const interfaces = agentInterfaces({
      jsonRpc: this.path === undefined ? undefined : `${baseUrl}${this.path}`,
      rest: this.restPath === undefined ? undefined : `${baseUrl}${this.restPath}`,
    })
    // The same JSON-RPC endpoint, for 0.3 clients (requests without A2A-Version).
    if (this.v03CardPath) interfaces.push({ url: `${baseUrl}${this.path}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' })
    for (const listed of this.#listed) interfaces.push(listed(baseUrl))
    return buildAgentCard(this.#options.card, this.#core.skills.values(), interfaces, this.capabilities)
  }

  /** The public card as served: signed when the exchange has signing keys. */
  signedCard(baseUrl: string): Promise<AgentCard> {
    return this.#sign(this.agentCard(baseUrl), baseUrl)
  }

  /** The A2A 0.3 card (compat.v03), signed anew when the exchange signs its cards. */
  async v03Card(baseUrl: string): Promise<AgentCard> {
    return this.#sign(cardToV03(this.agentCard(baseUrl)) as unknown as AgentCard, baseUrl)
  }

  /** The extended card for `principal`: the public card plus the hook's skills, signed like it. */
  async extendedCard(principal: Principal, baseUrl: string): Promise<AgentCard> {
    const hook = this.#options.extendedCard
    if (!hook) throw new Error('This exchange has no extendedCard hook')
    const card = this.agentCard(baseUrl)
    const listed = new Set(card.skills.map((skill) => skill.id))
    for (const entry of await hook(principal)) {
      const skill = typeof entry === 'string' ? this.#core.skills.get(entry) : undefined
      if (typeof entry === 'string' && !skill) throw new Error(`extendedCard returned skill id "${entry}", which is not a registered skill`)
      const cardSkill = skill ? skillToCard(skill) : (entry as AgentSkill)
      if (listed.has(cardSkill.id)) continue
      listed.add(cardSkill.id)
      card.skills.push(cardSkill)
    }
    if (this.tools && !this.#options.disableEntitySkills) {
      // Entity skills as this caller may use them: a narrowed credential sees only its operations.
      const descriptions = entitySkillDescriptions(this.tools, principal)
      card.skills = card.skills.flatMap((skill) => {
        if (!descriptions.has(skill.id)) return [skill]
        const description = descriptions.get(skill.id)
        return description === undefined ? [] : [{ ...skill, description }]
      })
    }
    return this.#sign(card, baseUrl)
  }

  #sign(card: AgentCard, baseUrl: string): Promise<AgentCard> {
    return this.#signer ? this.#signer.sign(card, `${baseUrl}${JWKS_PATH}`) : Promise.resolve(card)
  }

  /**
   * Invokes a method in-process as `principal`; throws {@link A2AError} as the wire would answer.
   * Streaming methods answer a {@link StreamReply} for an SSE writer.
   */
  call(principal: Principal, method: string, params: unknown = {}, reresolve?: Caller['reresolve'], baseUrl?: string): Promise<unknown> {
    return this.#call(principal, method, params, reresolve, baseUrl)
  }

  /** Serves the JSON-RPC endpoint on a Node request (Express, node:http, …). */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.path === undefined) return sendJson(response, 404, { error: 'The JSON-RPC binding is turned off on this agent; see supportedInterfaces on its card' })
    return handleRpc(this.#http, request, response)
  }

  /**
   * Serves the HTTP+JSON binding on a Node request whose URL path starts with {@link restPath}
   * (Express: mount it at the app's root, or pass the request with its full path).
   */
  async handleRest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const pathname = requestPath(request)
    if (this.restPath === undefined || !isBelow(pathname, this.restPath)) {
      return sendJson(response, 404, { error: { code: 404, status: 'NOT_FOUND', message: `No HTTP+JSON binding at ${pathname}`, details: [] } })
    }
    return handleRest(this.#http, request, response, pathname.slice(this.restPath.length))
  }

  /** Whether a request path belongs to the HTTP+JSON binding. */
  servesRest(pathname: string): boolean {
    return this.restPath !== undefined && isBelow(pathname, this.restPath)
  }

  /** Lists a binding served elsewhere (serveGrpc's) on the card, built for each base URL; returns the function that takes it off. */
  listInterface(entry: (baseUrl: string) => AgentInterface): () => void {
    this.#listed.add(entry)
    this.#renewCardHandlers()
    return () => {
      this.#listed.delete(entry)
      this.#renewCardHandlers()
    }
  }

  /** The gate's settings and the method table's entry, for a binding served outside the HTTP handlers (gRPC). */
  get bindingOptions(): GateOptions & { call: Exchange['call'] } {
    return this.#http
  }

  /** Built once, on first use: every field is fixed by then. */
  #httpOptions: (GateOptions & { call: Exchange['call']; maxIdLength: number; v03: boolean }) | undefined

  get #http(): GateOptions & { call: Exchange['call']; maxIdLength: number; v03: boolean } {
    return (this.#httpOptions ??= {
      resolvePrincipal: this.#options.resolvePrincipal,
      allowedOrigins: this.#allowedOrigins,
      ...this.#bodyLimits,
      maxIdLength: this.#requestLimits.maxIdLength,
      requestLimits: this.#requestLimits,
      assumeVersionWhenAbsent: this.#options.assumeVersionWhenAbsent,
      v03: this.v03CardPath !== undefined,
      extensions: this.#options.extensions ?? [],
      publicUrl: this.#publicUrl,
      logger: this.#core.logger,
      // The methods' own entry: a binding's request goes down to them, not back through the exchange.
      call: this.#call,
    })
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
      ...this.#bodyLimits,
      requestLimits: this.#requestLimits,
      name: this.#options.card.name,
      version: this.#options.card.version,
      ...(this.#publicUrl ? { publicUrl: this.#publicUrl } : {}),
      logger: this.#core.logger,
    })
    return this.#mcp
  }

  /** Serves `/.well-known/agent-card.json`: with compat.v03, the 0.3 card to a request without `A2A-Version: 1.x`. */
  handleCard(request: IncomingMessage, response: ServerResponse): Promise<void> {
    return (this.#serveV03Card && wantsV03Card(request) ? this.#serveV03Card : this.#serveCard)(request, response)
  }

  /** Serves the 0.3 card at {@link v03CardPath}; 404 unless compat.v03 is on. */
  async handleV03Card(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.#serveV03Card) return this.#serveV03Card(request, response)
    response.writeHead(404).end()
  }

  /** Serves the card's public keys (a JWK Set) at {@link jwksPath}; 404 when the card is unsigned. */
  handleJwks(request: IncomingMessage, response: ServerResponse): void {
    if (this.#serveJwks) return this.#serveJwks(request, response)
    response.writeHead(404).end()
  }

  /** Serves an artifact file to the task's own callers (`<path>/artifacts/<taskId>/<fileId>`). */
  handleArtifact(request: IncomingMessage, response: ServerResponse): Promise<void> {
    return this.#serveArtifact(request, response)
  }

  /**
   * Calls `listener` with the id of every task written from now on: in this process at once, and
   * by other replicas as the store's notifications tell (PostgresStore); `resync` when some may
   * have been missed. One listener for many followers (the inbox's live list); returns the unsubscribe.
   */
  watchTasks(listener: (change: TaskChange) => void): () => void {
    const local = this.#core.events.watch((event) => listener({ taskId: event.taskId }))
    const remote = capabilityOf(this.#core.store, 'notifications')?.notifications.listen((note) => listener('resync' in note ? note : { taskId: note.taskId }))
    this.#watchers.add(listener)
    return () => {
      local()
      remote?.()
      this.#watchers.delete(listener)
    }
  }

  /** Told `{ shutdown: true }` when shutdown starts, so long-lived followers (the inbox's feeds) end and the server can close. */
  readonly #watchers = new Set<(change: TaskChange) => void>()

  /**
   * Gives each artifact written from now on `metadata.webUrl`, its page under `path` (the inbox
   * calls this when it serves the agent), so a person can open what an A2A caller received.
   */
  showArtifactsAt(path: string): void {
    this.#core.artifactPages = path
  }

  /** A stored artifact file (an oversized part's `url`) of a task `principal` may see; undefined otherwise. */
  async artifactFile(principal: Principal, taskId: string, fileId: string): Promise<ArtifactFile | undefined> {
    const record = await this.#core.store.get(taskId)
    if (!record || !canSee((this.#core.viewerOf ?? viewerOf)(principal), tierOf(record))) return undefined
    return this.#core.artifacts!.files.get(record.id, fileId)
  }

  /** Serves the RFC 9728 metadata at `/.well-known/oauth-protected-resource`. */
  handleProtectedResource(request: IncomingMessage, response: ServerResponse): void {
    this.#serveProtectedResource(request, response)
  }

  /**
   * What this exchange does apart from requests: the sweep that settles the tasks of stopped runs.
   * It starts with the exchange, unless ExchangeOptions.background is `'manual'` or the exchange
   * was created in serve()'s `start`, which starts it under the worker and all roles only.
   */
  background(): BackgroundService[] {
    return [this.#leases.sweeper]
  }

  /** This process's id in the run leases of the store (ExchangeOptions.replicaId). */
  get replicaId(): string {
    return this.#core.replica
  }

  /**
   * A worker that runs the queued jobs of ExchangeOptions.jobs on this exchange's tasks (its
   * store, events and push delivery). Jobs take no run slot of their owner: the worker's
   * `concurrency` bounds them. Start it in the processes that run jobs; stop it before shutdown.
   */
  jobWorker(options?: JobWorkerOptions): JobWorker {
    const setup = this.#core.jobs
    if (!setup) throw new Error('jobWorker() needs jobs: pass jobs: { queue, jobs: [...] } to createExchange')
    return createJobWorker(this.#core, setup, options)
  }

  /** Runs in flight (started, not yet settled or paused), job attempts of its worker included. */
  get activeRuns(): number {
    return this.#core.runs.size
  }

  /**
   * Stops claiming runs (sends answer -32004), cuts every live run and stores it CANCELED, and
   * resolves once all have settled or `timeoutMs` passes. Reads keep answering.
   */
  async shutdown({ timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<void> {
    this.#core.closing = true
    for (const watcher of [...this.#watchers]) watcher({ shutdown: true })
    const runs = [...this.#core.runs.values()]
    // Then the trims their settling started, and those of runs that settled just before.
    const settled = Promise.all(
      runs.map(async (run) => {
        await run.cut()
        await run.done
      }),
    ).then(() => Promise.all(this.#core.retaining))
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
    // The final states are notified too, within the same deadline.
    await Promise.race([settled.then(() => this.#core.push?.idle()), deadline])
    clearTimeout(timer)
    // Runs still live past the deadline keep their leases no longer: another replica settles them.
    this.#leases.stop()
    this.#core.remote?.stop()
  }
}

/** What {@link Exchange.watchTasks} tells: a task written, some writes maybe missed, or the exchange shutting down. */
export type TaskChange = { taskId: string } | { resync: true } | { shutdown: true }

const isBelow = (pathname: string, base: string): boolean => pathname.startsWith(`${base}/`)

/**
 * An agent's callers see its tasks only: the agent's id goes into the tenant coordinate the
 * store matches on (`<agent>:` or `<agent>:<tenant>`), so a task id of agent A is unknown on agent
 * B and retention tiers and tenant limits count per agent. Skills still see the caller's own tenant.
 */
export const agentViewer =
  (agentId: string) =>
  (principal: Principal): Viewer => {
    const viewer = viewerOf(principal)
    return { ...viewer, tenant: `${agentId}:${viewer.tenant ?? ''}` }
  }

export function createExchange(options: ExchangeOptions): Exchange {
  return new Exchange(options)
}
