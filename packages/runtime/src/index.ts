/**
 * `@a2a-agent/runtime`: the A2A v1.0 task exchange over JSON-RPC.
 *
 * @example
 * ```ts
 * import express from 'express'
 * import { a2aListener, createExchange, createHttpServer, defineSkill, devKeyResolver } from '@a2a-agent/runtime'
 *
 * const echo = defineSkill({ id: 'echo', description: 'Echoes text', handler: async (ctx) => {
 *   await ctx.artifact({ name: 'echo', parts: ctx.text })
 * } })
 * const exchange = createExchange({ skills: [echo], resolvePrincipal: devKeyResolver('alice:key-alice'),
 *   card: { name: 'Echo', description: 'Echoes', version: '1.0.0' } })
 * createHttpServer(a2aListener(exchange, express())).listen(3000)
 * ```
 *
 * This file is the whole public API: named exports only.
 * @module
 */

// The exchange
export { createExchange, Exchange } from './exchange/exchange.js'
export type { ExchangeOptions, ExtendedSkills, TaskChange } from './exchange/exchange.js'

// Limits: per request, and the HTTP server's own timeouts
export { DEFAULT_REQUEST_LIMITS } from './wire/limits.js'
export type { RequestLimits } from './wire/limits.js'
export { createHttpServer, DEFAULT_LISTEN_BACKLOG, DEFAULT_SERVER_TIMEOUTS } from './http/http-server.js'
export type { HttpServerOptions, ServerTimeouts } from './http/http-server.js'

// Serving: the runtime's routes straight from node:http, the rest to the app (see also ./express)
export { a2aListener } from './host/a2a-listener.js'
export type { A2aListenerOptions } from './host/a2a-listener.js'

// Several agents in one app
export { AgentHost, createAgentHost } from './agents/agent-host.js'
export type { AgentDefinition, AgentHostOptions, AgentIndexEntry } from './agents/agent-host.js'

// Skills and the task context handlers work with
export { defineSkill } from './skills/skill.js'
export type { Skill, SkillHandler, SkillResult } from './skills/skill.js'
export type { TaskContext, ArtifactChunk, Content } from './skills/task-context.js'
export { defineJob } from './skills/job.js'
export type { Job, JobContext, JobDefinition, Backoff } from './skills/job.js'
export type { JobQueue, QueuedJob, JobSettings, JobHandlers } from './skills/job-queue.js'
export { HandedBack } from './skills/job-queue.js'
export type { JobWorker, JobWorkerOptions } from './jobs/job-worker.js'
export { MemoryJobQueue, type DeadJob, type MemoryJobQueueOptions } from './jobs/memory-job-queue.js'
export { SqliteJobQueue, type SqliteJobQueueOptions, type DeadSqliteJob } from './jobs/sqlite-job-queue.js'
export { DeadlineExceededError, RunEndedError, TaskCanceledError, TaskTimeoutError } from './run/run-errors.js'

// Entity tools: the registry generated code plugs into, its derived skills and its MCP endpoint
export { defineEntities, ENTITY_OPERATIONS } from './entity/declarations.js'
export type { EntityDeclaration, EntityDeclarations, EntityOperation } from './entity/declarations.js'
export { ToolError } from './entity/entity-tool.js'
export { wholeKey, type WholeKey } from './entity/whole-key.js'
export type { EntityTool, JsonSchema, ToolContext } from './entity/entity-tool.js'
export { createToolRegistry } from './entity/tool-registry.js'
export type { ToolRegistry, ToolRegistryOptions } from './entity/tool-registry.js'
export { entitySkillId, entitySkills } from './entity/entity-skills.js'
export { createMcpHandler } from './entity/mcp-handler.js'
export type { McpHandlerOptions, McpHttpHandler } from './entity/mcp-handler.js'

// Identity
export { canSee, scopeKey, viewerOf } from './core/principal.js'
export type { Principal, PrincipalResolver, Viewer } from './core/principal.js'
export { loadDotEnv } from './env/dot-env.js'
export { DEV_KEYS_VARIABLE, devKeyResolver, devKeysFromEnv, parseDevKeys, withDevKeys } from './auth/dev-keys.js'

// Stores
export { MemoryStore } from './store/memory-store.js'
export { InvalidCursorError } from './store/store.js'
export type { ListPage, ListQuery, NewTaskClaim, PushConfigRecord, PushConfigStore, Store, StoreCapabilities, TaskChanges, TaskRecord } from './store/store.js'
export { CAPABILITY_NAMES, capabilityOf } from './store/capabilities.js'
export type { Capabilities, CapabilityName, TaskNotifications } from './store/capabilities.js'
export { NotJsonEncodableError } from './wire/json-safe.js'

// Streaming and push
export { StreamReply } from './methods/streaming.js'
export type { SeatOverflow } from './stream/stream-seats.js'
export { PushUrlError } from './push/address-guard.js'
export type { PushDelivery, PushDeliveryContext, PushDeliveryProvider, PushEvent } from './push/push-delivery.js'

// Agent card
export { buildAgentCard } from './card/agent-card.js'
export type { CardOptions } from './card/agent-card.js'
export { canonicalCardPayload, verifyCardSignature } from './card/card-signing.js'
export { generateSigningKey, parseSigningKeys, SIGNING_KEY_ENV } from './card/signing-keys.js'
export type { SigningKey, SigningKeyInput } from './card/signing-keys.js'
export type { ProtectedResourceOptions } from './card/protected-resource.js'

// Wire errors and types
export { A2AError, isA2AError } from './wire/a2a-error.js'
export type { A2AErrorReason, FieldViolation, JsonRpcErrorObject } from './wire/a2a-error.js'
export type { Logger } from './log/logger.js'
export { setDefaultLogger } from './log/logger.js'

// Start-up, health, logs
export { serve, StartupError } from './serve/serve.js'
export type { ServedApp, ServeOptions, Serving } from './serve/serve.js'
export { parseRole, PROCESS_ROLES, servesA2a } from './serve/roles.js'
export type { ProcessRole } from './serve/roles.js'
export type { BackgroundService } from './core/background-service.js'
export { HEALTH_PATH, READY_PATH, Readiness, withHealthRoutes } from './serve/health.js'
export type { ReadinessOptions } from './serve/health.js'
export { createLogger } from './serve/pino-logger.js'
export { isPaused, isTerminal, TASK_STATES } from './wire/types.js'
export type {
  AgentCard,
  AgentCardSignature,
  AgentCapabilities,
  AgentExtension,
  AgentSkill,
  Artifact,
  DataPart,
  ListTasksResponse,
  Message,
  Part,
  RawPart,
  Role,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
  TextPart,
  UrlPart,
} from './wire/types.js'
