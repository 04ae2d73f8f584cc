/**
 * 0.3 → 1.0 on the way in: a 0.3 request's params re-shaped into the 1.0 params the method table
 * parses. Only the members whose shape differs are checked here (a `kind`, a `role`, a `file`);
 * everything else goes on as sent and the 1.0 parser names what is wrong with it.
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'
import { isObject } from '../wire/to-v03.js'

type Json = Record<string, unknown>

const ROLES: Record<string, string> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' }

/** MessageSendParams → SendMessageRequest: `blocking: false` is `returnImmediately: true`, the push config flattened. */
export function sendParamsFromV03(params: unknown): unknown {
  if (!isObject(params)) return params
  const out: Json = { ...params }
  if (params.message !== undefined) out.message = messageFromV03(params.message, 'message')
  const config = params.configuration
  if (isObject(config)) {
    const { blocking, pushNotificationConfig, ...rest } = config
    const translated: Json = rest
    if (blocking === false) translated.returnImmediately = true
    else if (blocking !== undefined && blocking !== true) throw A2AError.invalidParams('configuration.blocking', 'must be true or false')
    if (pushNotificationConfig !== undefined) translated.taskPushNotificationConfig = pushConfigFromV03(pushNotificationConfig, 'configuration.pushNotificationConfig')
    out.configuration = translated
  }
  return out
}

export function messageFromV03(message: unknown, path: string): unknown {
  if (!isObject(message)) return message
  const { kind, role, parts, ...rest } = message
  if (kind !== undefined && kind !== 'message') throw A2AError.invalidParams(`${path}.kind`, 'must be "message"')
  const out: Json = rest
  if (role !== undefined) {
    if (typeof role !== 'string' || !Object.hasOwn(ROLES, role)) throw A2AError.invalidParams(`${path}.role`, 'must be "user" or "agent" (A2A 0.3)')
    out.role = ROLES[role]
  }
  if (parts !== undefined) out.parts = Array.isArray(parts) ? parts.map((part, i) => partFromV03(part, `${path}.parts[${i}]`)) : parts
  return out
}

function partFromV03(part: unknown, path: string): unknown {
  if (!isObject(part)) return part
  const { kind, metadata, ...rest } = part
  const out: Json = metadata === undefined ? {} : { metadata }
  if (kind === 'text') return { ...out, text: rest.text }
  if (kind === 'data') return { ...out, data: rest.data }
  if (kind === 'file') {
    const file = rest.file
    if (!isObject(file)) throw A2AError.invalidParams(`${path}.file`, 'must be an object with "bytes" (base64) or "uri"')
    const hasBytes = file.bytes !== undefined
    if (hasBytes === (file.uri !== undefined)) throw A2AError.invalidParams(`${path}.file`, 'must have exactly one of "bytes" (base64) or "uri"')
    if (file.mimeType !== undefined) out.mediaType = file.mimeType
    if (file.name !== undefined) out.filename = file.name
    return hasBytes ? { ...out, raw: file.bytes } : { ...out, url: file.uri }
  }
  throw A2AError.invalidParams(`${path}.kind`, `${kind === undefined ? 'is missing' : `${JSON.stringify(kind)} is not a part kind`}: send "text", "file" or "data" (A2A 0.3)`)
}

/** PushNotificationConfig → the flat 1.0 config; 0.3's list of schemes holds the one 1.0 takes. */
export function pushConfigFromV03(config: unknown, path: string): Json {
  if (!isObject(config)) throw A2AError.invalidParams(path, 'must be an object with "url"')
  const { authentication, ...rest } = config
  const out: Json = rest
  if (authentication !== undefined) {
    const schemes = isObject(authentication) ? authentication.schemes : undefined
    if (!Array.isArray(schemes) || schemes.length !== 1 || typeof schemes[0] !== 'string') {
      throw A2AError.invalidParams(`${path}.authentication.schemes`, 'must list exactly one scheme (e.g. ["Bearer"]): this agent sends one Authorization scheme')
    }
    const { credentials } = authentication as Json
    out.authentication = { scheme: schemes[0], ...(credentials !== undefined ? { credentials } : {}) }
  }
  return out
}

/** TaskPushNotificationConfig (`{taskId, pushNotificationConfig}`) → CreateTaskPushNotificationConfig params. */
export function setPushParamsFromV03(params: unknown): unknown {
  if (!isObject(params)) return params
  if (params.pushNotificationConfig === undefined) throw A2AError.invalidParams('pushNotificationConfig', 'is required: send {"taskId", "pushNotificationConfig": {"url", …}}')
  return { ...pushConfigFromV03(params.pushNotificationConfig, 'pushNotificationConfig'), taskId: params.taskId }
}

/** A 0.3 `{id, pushNotificationConfigId}` reference → 1.0 `{taskId, id}`. */
export function pushRefFromV03(params: unknown): Json {
  if (!isObject(params)) throw A2AError.invalidParams('params', 'must be an object with "id" (the task id)')
  return { taskId: params.id, ...(params.pushNotificationConfigId !== undefined ? { id: params.pushNotificationConfigId } : {}) }
}
