/**
 * One line per request the runtime serves (binding, agent, method, HTTP status, A2A error code,
 * duration, task id) and the request's server span. Nothing here reads a header other than the
 * caller's trace context, nor a body: a line never holds a credential or a message.
 *
 * Handlers add what only they know to the request's note (keyed by its response, no async
 * context): when neither lines nor spans are wanted, no note exists and a handler's lookup finds none.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { requestPath } from './request-path.js'
import { callerContext, context, failSpan, SpanKind, tracer, tracingOn, withSpan, type Span } from '../trace/tracing.js'
import { A2AError } from '../wire/a2a-error.js'
import { logsRequests, scrub, type Logger } from '../log/logger.js'

/** What the handlers learned about one request; logged and put on its span once it ends. */
export interface RequestNote {
  binding: string | undefined
  agent: string | undefined
  method: string | undefined
  /** The A2A (JSON-RPC) error code answered, whichever binding answered it. */
  code: number | undefined
  params: unknown
  result: unknown
}

const notes = new WeakMap<ServerResponse, RequestNote>()

/** The note of the request `response` answers, when it is observed. */
export const requestNote = (response: ServerResponse): RequestNote | undefined => notes.get(response)

/** Notes the binding answering the request; returns the note for the method, outcome and params. */
export function noteBinding(response: ServerResponse, binding: string): RequestNote | undefined {
  const note = notes.get(response)
  if (note) note.binding = binding
  return note
}

/** Notes a method's result, or the code of the error it answered. */
export function noteOutcome(note: RequestNote | undefined, outcome: { result: unknown } | { error: unknown }): void {
  if (!note) return
  if ('result' in outcome) note.result = outcome.result
  else note.code = codeOf(outcome.error)
}

/**
 * Whether requests are observed at all (a line to `logger` per request, or a server span). When
 * not, a host calls its route itself: the request does not pass through here and back up.
 */
export const observes = (logger: Logger): boolean => logsRequests(logger) || tracingOn()

/**
 * Serves the request through `serve`, logging one line to `logger` once its response closes and
 * wrapping it in a server span continuing the caller's `traceparent`; only `serve` when neither is on.
 */
export function observeRequest(
  serve: (request: IncomingMessage, response: ServerResponse) => Promise<unknown>,
  request: IncomingMessage,
  response: ServerResponse,
  logger: Logger,
): Promise<unknown> {
  const logging = logsRequests(logger)
  const tracing = tracingOn()
  if (!logging && !tracing) return serve(request, response)
  const started = performance.now()
  const note: RequestNote = { binding: undefined, agent: undefined, method: undefined, code: undefined, params: undefined, result: undefined }
  notes.set(response, note)
  const path = requestPath(request)
  let span: Span | undefined
  if (tracing) {
    const parent = callerContext(request.headers)
    span = tracer.startSpan(
      `${request.method ?? 'GET'} ${path}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method ?? 'GET', 'url.path': path },
      },
      parent,
    )
    response.once('close', () => endRequest(span!, note, response, path))
    if (logging) response.once('close', () => logRequest(logger, note, request, response, path, started))
    return context.with(withSpan(parent, span), () => serve(request, response))
  }
  response.once('close', () => logRequest(logger, note, request, response, path, started))
  return serve(request, response)
}

function logRequest(logger: Logger, note: RequestNote, request: IncomingMessage, response: ServerResponse, path: string, started: number): void {
  const fields: Record<string, unknown> = {
    binding: note.binding ?? bindingOf(path),
    httpMethod: request.method,
    path: scrub(path, 300),
    status: response.statusCode,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
  }
  if (note.agent !== undefined) fields.agent = note.agent
  if (note.method !== undefined) fields.method = note.method
  if (note.code !== undefined) fields.code = note.code
  const taskId = taskIdOf(note)
  if (taskId !== undefined) fields.taskId = taskId
  // Cut before its answer was complete: the caller left, or a stream was cut.
  if (!response.writableFinished) fields.aborted = true
  logger.info!(fields, 'request')
}

function endRequest(span: Span, note: RequestNote, response: ServerResponse, path: string): void {
  span.setAttribute('http.response.status_code', response.statusCode)
  span.setAttribute('a2a.binding', note.binding ?? bindingOf(path))
  if (note.agent !== undefined) span.setAttribute('a2a.agent', note.agent)
  if (note.method !== undefined) span.setAttribute('a2a.method', note.method)
  if (note.code !== undefined) span.setAttribute('a2a.error_code', note.code)
  const taskId = taskIdOf(note)
  if (taskId !== undefined) span.setAttribute('a2a.task_id', taskId)
  if (response.statusCode >= 500 || note.code === -32603) failSpan(span, `HTTP ${response.statusCode}${note.code === undefined ? '' : ` code ${note.code}`}`)
  span.end()
}

/** The binding a path belongs to, for routes whose handler noted none. */
function bindingOf(path: string): string {
  if (path.endsWith('/agent-card.json')) return 'card'
  if (path.endsWith('/oauth-protected-resource')) return 'metadata'
  if (path.endsWith('/jwks.json')) return 'jwks'
  if (path.includes('/artifacts/')) return 'artifact'
  if (path.endsWith('/mcp') || path.endsWith('/mcp/')) return 'mcp'
  if (path.endsWith('/agents')) return 'agents'
  return 'http'
}

/** The task the request was about: the one its result names, else the one its params named. */
function taskIdOf(note: RequestNote): string | undefined {
  const fromResult = idIn(note.result)
  if (fromResult !== undefined) return fromResult
  const params = note.params as { id?: unknown; taskId?: unknown; message?: { taskId?: unknown }; name?: unknown } | undefined
  if (!params || typeof params !== 'object') return undefined
  const id = params.id ?? params.taskId ?? params.message?.taskId
  return typeof id === 'string' ? scrub(id, 200) : undefined
}

/** A Task's id, a Message's taskId, or the task of a StreamReply or push config. */
function idIn(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return undefined
  const value = result as { id?: unknown; taskId?: unknown; task?: { id?: unknown }; message?: { taskId?: unknown }; kind?: unknown }
  const id = value.task?.id ?? value.message?.taskId ?? value.taskId ?? (typeof value.id === 'string' && 'status' in value ? value.id : undefined)
  return typeof id === 'string' ? scrub(id, 200) : undefined
}

/** The A2A code an error is answered with: its own, a refusal's, else -32603 (an internal error). */
function codeOf(error: unknown): number {
  if (error instanceof A2AError) return error.code
  const wrapped = (error as { error?: unknown } | null)?.error
  return wrapped instanceof A2AError ? wrapped.code : A2AError.internal().code
}
