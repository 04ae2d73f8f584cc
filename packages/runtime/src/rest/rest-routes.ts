/**
 * The HTTP+JSON routes of the specification (section 11.3), each mapped onto the method of the
 * one dispatch table the JSON-RPC binding uses: a route only says where each request field comes
 * from (URL path, query, body). Paths may start with a tenant segment, as the official client
 * sends them (`/{tenant}/tasks/{id}`); it becomes the request's `tenant` field.
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'
import { toProtoName } from '../wire/proto-json.js'

type Fields = Record<string, unknown>

export interface Route {
  pattern: string
  verbs: readonly string[]
  method: string
  /** Whether the request carries a JSON body: always, when sent, or never. */
  body: 'required' | 'optional' | 'none'
  /** Query fields that are booleans (query values are strings). */
  booleans?: readonly string[]
}

export const ROUTES: readonly Route[] = [
  { pattern: 'message:send', verbs: ['POST'], method: 'SendMessage', body: 'required' },
  { pattern: 'message:stream', verbs: ['POST'], method: 'SendStreamingMessage', body: 'required' },
  { pattern: 'tasks', verbs: ['GET'], method: 'ListTasks', body: 'none', booleans: ['includeArtifacts'] },
  { pattern: 'tasks/{id}:cancel', verbs: ['POST'], method: 'CancelTask', body: 'optional' },
  // GET too, for EventSource clients (the official SDK's server takes both).
  { pattern: 'tasks/{id}:subscribe', verbs: ['POST', 'GET'], method: 'SubscribeToTask', body: 'optional' },
  { pattern: 'tasks/{id}', verbs: ['GET'], method: 'GetTask', body: 'none' },
  { pattern: 'tasks/{taskId}/pushNotificationConfigs', verbs: ['POST'], method: 'CreateTaskPushNotificationConfig', body: 'required' },
  { pattern: 'tasks/{taskId}/pushNotificationConfigs', verbs: ['GET'], method: 'ListTaskPushNotificationConfigs', body: 'none' },
  { pattern: 'tasks/{taskId}/pushNotificationConfigs/{id}', verbs: ['GET'], method: 'GetTaskPushNotificationConfig', body: 'none' },
  { pattern: 'tasks/{taskId}/pushNotificationConfigs/{id}', verbs: ['DELETE'], method: 'DeleteTaskPushNotificationConfig', body: 'none' },
  { pattern: 'extendedAgentCard', verbs: ['GET'], method: 'GetExtendedAgentCard', body: 'none' },
]

export type RouteMatch = { route: Route; path: Record<string, string>; tenant?: string } | { allow: string[] } | undefined

/** The route for `verb` on `pathname` (relative to the binding's base); `allow` when only the verb is wrong. */
export function matchRoute(verb: string, pathname: string): RouteMatch {
  const segments = pathname.replace(/^\//, '').split('/')
  const direct = matchSegments(verb, segments)
  if (direct || segments.length < 2) return direct
  const tenanted = matchSegments(verb, segments.slice(1))
  if (tenanted && 'route' in tenanted) return { ...tenanted, tenant: decode(segments[0]!) }
  return tenanted
}

function matchSegments(verb: string, segments: readonly string[]): RouteMatch {
  const allow = new Set<string>()
  for (const route of ROUTES) {
    const path = matchPattern(route.pattern, segments)
    if (!path) continue
    if (route.verbs.includes(verb)) return { route, path }
    for (const v of route.verbs) allow.add(v)
  }
  return allow.size ? { allow: [...allow] } : undefined
}

function matchPattern(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/')
  if (parts.length !== segments.length) return undefined
  const path: Record<string, string> = {}
  for (const [i, part] of parts.entries()) {
    const segment = segments[i]!
    const variable = /^\{(\w+)\}(:\w+)?$/.exec(part)
    if (!variable) {
      if (segment !== part) return undefined
      continue
    }
    const [, name, suffix = ''] = variable
    const value = segment.endsWith(suffix) ? segment.slice(0, segment.length - suffix.length) : ''
    // A literal ':' only ever starts a custom verb (an id's own is percent-encoded), so
    // `tasks/x:cancel` is CancelTask or nothing, never GetTask of "x:cancel".
    if (value === '' || value.includes(':')) return undefined
    path[name!] = decode(value)
  }
  return path
}

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw A2AError.invalidRequest(`The URL path segment ${JSON.stringify(segment.slice(0, 64))} is not valid percent-encoding`)
  }
}

/**
 * The method's params: body or query fields, then the path's, which must not be contradicted.
 * A query field given twice is refused: each field is a single value.
 */
export function routeParams(match: { route: Route; path: Record<string, string>; tenant?: string }, query: URLSearchParams, body: Fields | undefined): Fields {
  const fields: Fields = body ? { ...body } : queryFields(query, match.route.booleans ?? [])
  const fromPath = { ...match.path, ...(match.tenant !== undefined ? { tenant: match.tenant } : {}) }
  for (const [name, value] of Object.entries(fromPath)) {
    for (const key of new Set([name, toProtoName(name)])) {
      if (fields[key] !== undefined && fields[key] !== null && fields[key] !== value) {
        throw A2AError.invalidParams(`params.${key}`, `is ${JSON.stringify(fields[key])} but the URL path says ${JSON.stringify(value)}; send one, or the same`)
      }
      delete fields[key]
    }
    fields[name] = value
  }
  return fields
}

function queryFields(query: URLSearchParams, booleans: readonly string[]): Fields {
  const fields: Fields = {}
  for (const key of new Set(query.keys())) {
    if (key === 'A2A-Version') continue
    const values = query.getAll(key)
    if (values.length > 1) throw A2AError.invalidParams(`params.${key}`, 'is given more than once; each query field takes one value')
    const value = values[0]!
    fields[key] = booleans.some((name) => name === key || toProtoName(name) === key) ? queryBoolean(value) : value
  }
  // The specification's examples name states by their short form (`status=working`).
  if (typeof fields.status === 'string' && /^[a-z_]+$/.test(fields.status)) fields.status = `TASK_STATE_${fields.status.toUpperCase()}`
  return fields
}

const queryBoolean = (value: string): unknown => (value === 'true' ? true : value === 'false' ? false : value)
