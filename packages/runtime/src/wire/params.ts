/**
 * Validation of each method's `params` against the v1.0 request messages, read as ProtoJSON (see
 * proto-json.ts). A failure becomes a -32602 naming the offending field path.
 * @module
 */
import { z } from 'zod'
import { A2AError } from './a2a-error.js'
import { collectNearMisses, int32, protoMessage } from './proto-json.js'
import { TASK_STATES, type Message, type TaskState } from './types.js'

const jsonObject = z.record(z.string(), z.unknown())
export const nonEmpty = z.string().min(1, 'must be a non-empty string')

/** ProtoJSON accepts an enum's number as well as its name. */
const taskState = z.union([
  z.enum(TASK_STATES, { error: `must be one of ${TASK_STATES.join(', ')}` }),
  z
    .number()
    .int()
    .min(1, 'TASK_STATE_UNSPECIFIED (0) is not a state')
    .max(8)
    .transform((n) => TASK_STATE_NUMBERS[n] as TaskState),
])
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

const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/
const PART_KINDS = ['text', 'raw', 'url', 'data'] as const

const part = protoMessage(
  'part',
  {
    text: z.string().optional(),
    raw: z.string().regex(base64, 'must be base64').optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    metadata: jsonObject.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  },
  { nullValued: ['data'] },
).superRefine((p, ctx) => {
    const present = PART_KINDS.filter((k) => p[k] !== undefined)
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          present.length === 0
            ? 'a part must set exactly one of text, raw, url or data'
            : `a part must set exactly one of text, raw, url or data, not ${present.join(' and ')}`,
      })
    }
  })

/** Clients send user messages; ProtoJSON also allows the enum's number (1). */
const role = z.unknown().transform((value, ctx) => {
  if (value === 'ROLE_USER' || value === 1) return 'ROLE_USER' as const
  ctx.addIssue({
    code: 'custom',
    message: value === undefined ? 'is required (ROLE_USER)' : 'a client message must have role ROLE_USER',
  })
  return z.NEVER
})

const message = protoMessage('message', {
    messageId: nonEmpty,
    role,
    parts: z.array(part).min(1, 'must hold at least one part'),
    contextId: nonEmpty.optional(),
    taskId: nonEmpty.optional(),
    metadata: jsonObject.optional(),
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(z.string()).optional(),
    content: z.unknown().optional(),
})
  .superRefine((m, ctx) => {
    if (m.content !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: '"content" is the pre-1.0 name of this field; send the parts in "parts"',
      })
    }
  })
  .transform(({ content: _content, ...rest }) => rest as Message)

const historyLength = int32(z.number().min(0, 'must be 0 or more'))
export const pageSize = int32(z.number().min(1, 'must be 1..100').max(100, 'must be 1..100'))
export const tenant = z.string().optional()

export const pushConfigShape = {
  id: z.string().optional(),
  taskId: z.string().optional(),
  url: nonEmpty,
  token: z.string().optional(),
  authentication: protoMessage('authentication', { scheme: nonEmpty, credentials: z.string().optional() }).optional(),
  tenant,
}
export const pushConfig = protoMessage('taskPushNotificationConfig', pushConfigShape)

export const sendMessageParams = protoMessage('params', {
  message,
  configuration: protoMessage('configuration', {
      acceptedOutputModes: z.array(z.string()).optional(),
      taskPushNotificationConfig: pushConfig.optional(),
      historyLength: historyLength.optional(),
      returnImmediately: z.boolean().optional(),
      blocking: z.unknown().optional(),
  })
    .superRefine((c, ctx) => {
      if (c.blocking !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['blocking'],
          message: '"blocking" is the v0.3 field; v1.0 blocks by default, send "returnImmediately": true to not wait',
        })
      }
    })
    .optional(),
  metadata: jsonObject.optional(),
  tenant,
})

export const getTaskParams = protoMessage('params', { id: nonEmpty, historyLength: historyLength.optional(), tenant })

export const subscribeParams = protoMessage('params', { id: nonEmpty, tenant })

export const cancelTaskParams = protoMessage('params', { id: nonEmpty, metadata: jsonObject.optional(), tenant })

const timestamp = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'must be an RFC 3339 timestamp such as 2026-01-31T12:00:00.000Z',
  })

export const listTasksParams = protoMessage('params', {
  contextId: z.string().optional(),
  status: taskState.optional(),
  pageSize: pageSize.optional(),
  pageToken: z.string().optional(),
  historyLength: historyLength.optional(),
  statusTimestampAfter: timestamp.optional(),
  includeArtifacts: z.boolean().optional(),
  tenant,
})

export const tenantOnlyParams = protoMessage('params', { tenant })

export type SendMessageParams = z.output<typeof sendMessageParams>
export type ListTasksParams = z.output<typeof listTasksParams>

/**
 * Parses params or throws a -32602 whose field path starts at `params`. `note` hears of unknown
 * fields that look like misspelt known ones (they are ignored either way).
 */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown, note?: (nearMiss: string) => void): z.output<S> {
  const { value: result, nearMisses } = collectNearMisses(() => schema.safeParse(params))
  if (note) for (const nearMiss of nearMisses) note(nearMiss)
  if (result.success) return result.data
  const violations = result.error.issues.map((issue) => ({
    field: formatPath(['params', ...issue.path]),
    description: describe(issue),
  }))
  const first = violations[0]!
  throw A2AError.invalidParams(first.field, first.description, violations)
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return `is required (${issue.expected})`
  if (issue.code === 'invalid_union') {
    const nested = issue.errors.flat()
    const custom = nested.find((n) => n.code === 'custom' || n.code === 'invalid_value')
    if (custom) return custom.message
  }
  return issue.message
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out ? `.${String(key)}` : String(key)
  }
  return out
}
