/**
 * Validation of each method's `params` against the v1.0 request messages, read as ProtoJSON (see
 * proto-json.ts). A failure becomes a -32602 naming the offending field path.
 * @module
 */
import { A2AError } from './a2a-error.js'
import { array, boolean, int32, jsonObject, optional, runCheck, string, stringThat, unknown, type Check } from './check.js'
import { collectNearMisses, protoMessage } from './proto-json.js'
import { TASK_STATES, type Message, type TaskState } from './types.js'

export const nonEmpty = stringThat((s) => s.length > 0, 'must be a non-empty string')

const TASK_STATE_SET: ReadonlySet<unknown> = new Set(TASK_STATES)
const TASK_STATE_NUMBERS: Record<number, TaskState> = {
  1: 'TASK_STATE_SUBMITTED',
  2: 'TASK_STATE_WORKING',
  3: 'TASK_STATE_COMPLETED',
  4: 'TASK_STATE_FAILED',
  5: 'TASK_STATE_CANCELED',
  6: 'TASK_STATE_INPUT_REQUIRED',
  7: 'TASK_STATE_REJECTED',
  8: 'TASK_STATE_AUTH_REQUIRED',
}

/** ProtoJSON accepts an enum's number as well as its name. */
const taskState: Check<TaskState> = (value, c) => {
  if (TASK_STATE_SET.has(value)) return value as TaskState
  const named = typeof value === 'number' ? TASK_STATE_NUMBERS[value] : undefined
  if (named) return named
  c.fail(value === 0 ? 'TASK_STATE_UNSPECIFIED (0) is not a state' : `must be one of ${TASK_STATES.join(', ')}`)
  return undefined as never
}

const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/
const PART_KINDS = ['text', 'raw', 'url', 'data'] as const

const part = protoMessage(
  'part',
  {
    text: optional(string),
    raw: optional(stringThat((s) => base64.test(s), 'must be base64')),
    url: optional(string),
    data: optional(unknown),
    metadata: optional(jsonObject),
    filename: optional(string),
    mediaType: optional(string),
  },
  {
    nullValued: ['data'],
    refine: (p, c) => {
      const present = PART_KINDS.filter((k) => p[k] !== undefined)
      if (present.length === 1) return
      c.fail(present.length === 0 ? 'a part must set exactly one of text, raw, url or data' : `a part must set exactly one of text, raw, url or data, not ${present.join(' and ')}`)
    },
  },
)

/** Clients send user messages; ProtoJSON also allows the enum's number (1). */
const role: Check<'ROLE_USER'> = (value, c) => {
  if (value === 'ROLE_USER' || value === 1) return 'ROLE_USER'
  c.fail(value === undefined ? 'is required (ROLE_USER)' : 'a client message must have role ROLE_USER')
  return undefined as never
}

const messageFields = protoMessage(
  'message',
  {
    messageId: nonEmpty,
    role,
    parts: array(part, 'must hold at least one part'),
    contextId: optional(nonEmpty),
    taskId: optional(nonEmpty),
    metadata: optional(jsonObject),
    extensions: optional(array(string)),
    referenceTaskIds: optional(array(string)),
    content: optional(unknown),
  },
  {
    refine: (m, c) => {
      if (m.content !== undefined) c.fail('"content" is the pre-1.0 name of this field; send the parts in "parts"', 'content')
    },
  },
)

const message: Check<Message> = (value, c) => {
  const read = messageFields(value, c)
  if (read) delete read.content
  return read as Message
}

// An int32 in the proto: past it a number is no longer exact (1e20), which zod's int() refused too.
const historyLength = int32(0, 2 ** 31 - 1, 'must be 0 or more, at most 2147483647')
export const pageSize = int32(1, 100, 'must be 1..100')
export const tenant = optional(string)

export const pushConfigShape = {
  id: optional(string),
  taskId: optional(string),
  url: nonEmpty,
  token: optional(string),
  authentication: optional(protoMessage('authentication', { scheme: nonEmpty, credentials: optional(string) })),
  tenant,
}
export const pushConfig = protoMessage('taskPushNotificationConfig', pushConfigShape)

const configuration = protoMessage(
  'configuration',
  {
    acceptedOutputModes: optional(array(string)),
    taskPushNotificationConfig: optional(pushConfig),
    historyLength: optional(historyLength),
    returnImmediately: optional(boolean),
    blocking: optional(unknown),
  },
  {
    refine: (config, c) => {
      if (config.blocking !== undefined) {
        c.fail('"blocking" is the v0.3 field; v1.0 blocks by default, send "returnImmediately": true to not wait', 'blocking')
      }
    },
  },
)

export const sendMessageParams = protoMessage('params', {
  message,
  configuration: optional(configuration),
  metadata: optional(jsonObject),
  tenant,
})

export const getTaskParams = protoMessage('params', { id: nonEmpty, historyLength: optional(historyLength), tenant })

export const subscribeParams = protoMessage('params', { id: nonEmpty, tenant })

export const cancelTaskParams = protoMessage('params', { id: nonEmpty, metadata: optional(jsonObject), tenant })

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const timestamp = stringThat((s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)), 'must be an RFC 3339 timestamp such as 2026-01-31T12:00:00.000Z')

export const listTasksParams = protoMessage('params', {
  contextId: optional(string),
  status: optional(taskState),
  pageSize: optional(pageSize),
  pageToken: optional(string),
  historyLength: optional(historyLength),
  statusTimestampAfter: optional(timestamp),
  includeArtifacts: optional(boolean),
  tenant,
})

export const tenantOnlyParams = protoMessage('params', { tenant })

/** What a check reads as. */
export type Parsed<C> = C extends Check<infer T> ? T : never
export type SendMessageParams = Parsed<typeof sendMessageParams>
export type ListTasksParams = Parsed<typeof listTasksParams>

/**
 * Parses params or throws a -32602 whose field path starts at `params`. `note` hears of unknown
 * fields that look like misspelt known ones (they are ignored either way).
 */
export function parseParams<T>(check: Check<T>, params: unknown, note?: (nearMiss: string) => void): T {
  const { value: result, nearMisses } = collectNearMisses(() => runCheck(check, params))
  if (note) for (const nearMiss of nearMisses) note(nearMiss)
  if (result.ok) return result.value
  const violations = result.issues.map((issue) => ({ field: formatPath(['params', ...issue.path]), description: issue.message }))
  const first = violations[0]!
  throw A2AError.invalidParams(first.field, first.description, violations)
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out ? `.${String(key)}` : String(key)
  }
  return out
}
