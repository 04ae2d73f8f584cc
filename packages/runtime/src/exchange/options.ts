/**
 * Everything an app configures on the exchange, with the defaults each knob falls back to.
 * @module
 */
import type { Principal, PrincipalResolver } from '../core/principal.js'
import type { CardOptions } from '../card/agent-card.js'
import type { ProtectedResourceOptions } from '../card/protected-resource.js'
import type { SigningKeyInput } from '../card/signing-keys.js'
import type { ToolRegistry } from '../entity/tool-registry.js'
import type { LimitCounters } from '../core/counters.js'
import type { Logger } from '../log/logger.js'
import type { Job } from '../skills/job.js'
import type { JobQueue } from '../skills/job-queue.js'
import type { PushDeliveryProvider } from '../push/push-delivery.js'
import type { Skill } from '../skills/skill.js'
import type { Store } from '../store/store.js'
import type { SeatOverflow } from '../stream/stream-seats.js'
import type { RequestLimits } from '../wire/limits.js'
import type { AgentExtension, AgentSkill } from '../wire/types.js'

export interface ExchangeOptions {
  /** Hand-written skills; at least one, unless `tools` provide entity skills. */
  skills?: Skill[]
  /**
   * Entity tools (generated code's `createToolRegistry(entityTools(db))`): served over MCP by
   * `a2aRouter`, and as one derived `entity.<name>` skill per entity unless `disableEntitySkills`.
   */
  tools?: ToolRegistry
  /** Keep the tools on MCP only: no derived `entity.<name>` skills. Default false. */
  disableEntitySkills?: boolean
  /** Resolves each request to its caller; a request it cannot resolve gets 401. */
  resolvePrincipal: PrincipalResolver
  card: CardOptions
  /** Defaults to a {@link MemoryStore}. */
  store?: Store
  /** JSON-RPC endpoint path; default `/a2a`. */
  path?: string
  /** The JSON-RPC binding at `path`; default true. */
  jsonRpc?: boolean
  /**
   * The HTTP+JSON (REST) binding: its routes (`/message:send`, `/tasks/{id}`, …) below `path`
   * (default `<path>/rest`, e.g. `/a2a/rest/message:send`), or false for none. Default on.
   */
  rest?: boolean | { path?: string }
  /** Browser origins admitted besides the request's own (tunnels, split front ends). */
  allowedOrigins?: string[]
  /** Request body cap in bytes; default 1 MiB. A larger declared Content-Length gets 413 unread. */
  maxBodyBytes?: number
  /** A body that sends nothing for this long gets 408 and the connection closed; default 30 s. */
  bodyIdleTimeoutMs?: number
  /**
   * Per-request limits, checked before any work: nesting depth, parts per message, metadata keys,
   * list items, id length. Each unset one keeps its default (DEFAULT_REQUEST_LIMITS).
   */
  requestLimits?: Partial<RequestLimits>
  /** Bytes of tasks in one ListTasks page; a page over it ends early and its cursor carries on. Default 1 MiB. */
  maxListTasksBytes?: number
  /** Serve requests without A2A-Version as this version (e.g. "1.0" for plain curl). Default: refuse them. */
  assumeVersionWhenAbsent?: '1.0'
  /**
   * Earlier protocol generations served beside 1.0. `v03`: A2A 0.3 JSON-RPC clients (the 0.3
   * methods and shapes, requests without A2A-Version read as 0.3, the 0.3 card at
   * `/.well-known/agent.json` and, to header-less readers, at the card path) on the same tasks.
   * Default off: such requests get -32009. See compat-v03/.
   */
  compat?: { v03?: boolean }
  /** Ceiling on one handler run; default 5 minutes. */
  taskTimeoutMs?: number
  /**
   * How long a run's lease on its task holds, in ms; default 30 s. The replica renews it every
   * third of that while the run works; once it has expired (the process stopped), any replica on
   * the store settles the task FAILED, at its next sweep (every quarter of a lease) or start-up.
   */
  runLeaseMs?: number
  /**
   * When the lease sweep (the service `exchange.background()` returns) starts: `'auto'`
   * (default) with the exchange, `'manual'` when its service is started. An exchange created in
   * serve()'s `start` (or later, from a timer or promise chain it left) leaves it to serve(), which
   * starts it under the worker and all roles only.
   */
  background?: 'auto' | 'manual'
  /** This process's id in run leases (default: a random UUID); must be unique among replicas on one store. */
  replicaId?: string
  /** Concurrent runs per owner; 0 = 16, negative = unlimited. */
  maxConcurrentRunsPerOwner?: number
  /** Fresh turns (new tasks) per sliding hour; past it HTTP 429 with Retry-After. Unset or 0 = unlimited. */
  maxTurnsPerHour?: number
  /** Whom `maxTurnsPerHour` counts together: each owner (default), or each tenant. */
  turnLimitPer?: 'owner' | 'tenant'
  /** Tasks SUBMITTED or WORKING at once per tenant (per owner in none); past it HTTP 429. Unset or 0 = unlimited. */
  maxOccupiedTasksPerTenant?: number
  /** Concurrent streams per API key (`Principal.credential`), on each server; past it HTTP 429. Unset or 0 = unlimited. */
  maxStreamsPerKey?: number
  /** Artifact text or bytes past this many are served by URL (an authenticated route of this app); 0 = 64 KiB. */
  maxInlineArtifactBytes?: number
  /**
   * Set by {@link AgentHost} for each agent it hosts: the agent's tasks (with their retention tiers
   * and limits) are kept apart from every other agent's, in the same store.
   */
  agentId?: string
  /** Whether the agent is paused: new tasks are born REJECTED saying so, paused ones wait. */
  paused?: () => boolean | Promise<boolean>
  /** Where the limits count; default the store's `counters` (PostgresStore: shared), else this process. */
  limitCounters?: LimitCounters
  /** Settled tasks kept per tier; 0 = 64, negative = the host owns retention. */
  settledTaskRetention?: number
  /** Paused tasks kept per tier; 0 = 64, negative = the host owns retention. */
  pausedTaskRetention?: number
  /** Accept `url` parts (the server never fetches them itself). Default false: -32005. */
  acceptUrlParts?: boolean
  /** SSE streaming (SendStreamingMessage, SubscribeToTask); default true. */
  streaming?: boolean
  /** Concurrent streams per owner; 0 = 16, negative = unlimited. */
  maxStreamSeatsPerOwner?: number
  /** At the seat cap: refuse the new stream with 429 (default) or close the owner's oldest. */
  streamSeatOverflow?: SeatOverflow
  /** Keep-alive comment interval on idle streams, which also re-checks the caller; default 15 s. */
  streamKeepAliveMs?: number
  /** Store polling interval for a stream whose task runs in no live run here; default 1 s. */
  streamPollMs?: number
  /** Push notifications (the four config methods and webhook delivery); default true. */
  pushNotifications?: boolean
  /**
   * Allow push URLs on loopback, private, link-local and other internal addresses. For development
   * and tests only: it lets a caller make this server send requests into its own network.
   */
  allowPrivatePush?: boolean
  /**
   * Where push notifications go instead of the built-in best-effort dispatcher: the durable outbox
   * of `@a2a-agent/runtime/push-outbox` for apps that need retried delivery.
   */
  pushDelivery?: PushDeliveryProvider
  /** Push configs kept per task (the oldest are deleted); 0 = 8, negative = unbounded. */
  maxPushConfigsPerTask?: number
  /**
   * The A2A extensions this agent supports (card `capabilities.extensions`). A request that does
   * not list a `required` one in its A2A-Extensions header is refused with -32008; the listed
   * ones it supports are echoed in the response's A2A-Extensions header.
   */
  extensions?: AgentExtension[]
  /**
   * Serves GetExtendedAgentCard: the public card plus the skills this returns for the caller, as
   * ids of registered skills (ones `card.publicSkills` leaves off the public card) or card entries.
   */
  extendedCard?: (principal: Principal) => ExtendedSkills | Promise<ExtendedSkills>
  /**
   * Signs the agent card (and the extended card): PEM or JWK text (a JWK Set for several keys), or
   * JWK objects. The first private key signs; all are published at `/.well-known/jwks.json`.
   */
  signingKeys?: SigningKeyInput | readonly SigningKeyInput[]
  /** What `/.well-known/oauth-protected-resource` (RFC 9728) names besides the resource itself. */
  protectedResource?: ProtectedResourceOptions
  logger?: Logger
  /**
   * Long work on a queue: the jobs skills may `ctx.enqueue`, and the queue they are stored on
   * (MemoryJobQueue, `@a2a-agent/runtime/pg-boss-jobs`, `@a2a-agent/runtime/mysql-jobs`, SqliteJobQueue). `exchange.jobWorker()` runs them.
   */
  jobs?: { queue: JobQueue; jobs: readonly Job[] }
}

export type ExtendedSkills = readonly (string | AgentSkill)[]

/** 0 and unset mean the default; other values, negative ones included, are taken as given. */
export const orDefault = (value: number | undefined, fallback: number): number => (value === undefined || value === 0 ? fallback : value)
