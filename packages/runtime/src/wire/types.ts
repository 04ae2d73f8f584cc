/**
 * The A2A v1.0 data model in its ProtoJSON wire form (camelCase fields, enum names as strings,
 * oneofs discriminated by which member is set). These are plain JSON shapes, not proto classes.
 * @module
 */

export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const

export type TaskState = (typeof TASK_STATES)[number]

export type Role = 'ROLE_USER' | 'ROLE_AGENT'

type JsonObject = Record<string, unknown>

interface PartCommon {
  metadata?: JsonObject
  filename?: string
  mediaType?: string
}

export type TextPart = PartCommon & { text: string }
/** Base64 file bytes. */
export type RawPart = PartCommon & { raw: string }
export type UrlPart = PartCommon & { url: string }
export type DataPart = PartCommon & { data: unknown }
export type Part = TextPart | RawPart | UrlPart | DataPart

export interface Message {
  messageId: string
  role: Role
  parts: Part[]
  contextId?: string
  taskId?: string
  metadata?: JsonObject
  extensions?: string[]
  referenceTaskIds?: string[]
}

export interface TaskStatus {
  state: TaskState
  message?: Message
  /** RFC 3339 UTC with milliseconds. */
  timestamp?: string
}

export interface Artifact {
  artifactId: string
  name?: string
  description?: string
  parts: Part[]
  metadata?: JsonObject
  extensions?: string[]
}

export interface Task {
  id: string
  contextId: string
  status: TaskStatus
  artifacts?: Artifact[]
  history?: Message[]
  metadata?: JsonObject
}

export interface TaskStatusUpdateEvent {
  taskId: string
  contextId: string
  status: TaskStatus
  metadata?: JsonObject
}

export interface TaskArtifactUpdateEvent {
  taskId: string
  contextId: string
  artifact: Artifact
  append?: boolean
  lastChunk?: boolean
  metadata?: JsonObject
}

export type StreamResponse = { task: Task } | { message: Message } | { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent }

export type SendMessageResponse = { task: Task } | { message: Message }

export interface AuthenticationInfo {
  scheme: string
  credentials?: string
}

export interface TaskPushNotificationConfig {
  id?: string
  taskId?: string
  url: string
  token?: string
  authentication?: AuthenticationInfo
  tenant?: string
}

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[]
  taskPushNotificationConfig?: TaskPushNotificationConfig
  historyLength?: number
  returnImmediately?: boolean
}

export interface SendMessageRequest {
  message: Message
  configuration?: SendMessageConfiguration
  metadata?: JsonObject
  tenant?: string
}

export interface ListTasksResponse {
  tasks: Task[]
  nextPageToken: string
  pageSize: number
  totalSize: number
}

export interface AgentSkill {
  id: string
  name: string
  description: string
  tags: string[]
  examples?: string[]
  inputModes?: string[]
  outputModes?: string[]
}

export interface AgentInterface {
  url: string
  protocolBinding: string
  protocolVersion: string
  tenant?: string
}

export interface AgentExtension {
  uri: string
  description?: string
  /** A client that does not list a required extension in A2A-Extensions is refused with -32008. */
  required?: boolean
  params?: JsonObject
}

export interface AgentCapabilities {
  streaming?: boolean
  pushNotifications?: boolean
  extendedAgentCard?: boolean
  extensions?: AgentExtension[]
}

export interface AgentProvider {
  url: string
  organization: string
}

export interface AgentCard {
  name: string
  description: string
  supportedInterfaces: AgentInterface[]
  provider?: AgentProvider
  version: string
  documentationUrl?: string
  capabilities: AgentCapabilities
  securitySchemes?: Record<string, unknown>
  securityRequirements?: { schemes: Record<string, { list: string[] }> }[]
  defaultInputModes: string[]
  defaultOutputModes: string[]
  skills: AgentSkill[]
  /** JWS signatures over the rest of the card (see card/card-signing.ts). */
  signatures?: AgentCardSignature[]
  iconUrl?: string
}

/** A detached JWS (RFC 7515 JSON form) over the card's canonical payload. */
export interface AgentCardSignature {
  protected: string
  signature: string
  header?: JsonObject
}

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'])

export const PAUSED_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'])

export const isTerminal = (state: TaskState): boolean => TERMINAL_STATES.has(state)
export const isPaused = (state: TaskState): boolean => PAUSED_STATES.has(state)
