/**
 * The HTTP+JSON (REST) binding's HTTP side: the route, then the same gate as JSON-RPC (origin,
 * principal, content type, body cap), the body decoded as strictly as a JSON-RPC envelope,
 * version and extensions, then the method from the one dispatch table. Results are the bare
 * response objects on 200; errors are `google.rpc.Status` bodies under the mapped HTTP status;
 * streaming routes answer SSE whose events are bare StreamResponse objects.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { StreamReply } from '../methods/streaming.js'
import { admit, baseUrlOf, negotiate, reresolver, type GateOptions } from '../http/gate.js'
import { refusalOf } from '../http/refusal-of.js'
import { sendJson } from '../http/respond.js'
import type { Call } from '../methods/method.js'
import { scrub } from '../log/logger.js'
import { noteBinding, noteOutcome, requestNote } from '../http/request-log.js'
import { LARGE_TEXT, nextTurn } from '../core/turns.js'
import { SseWriter, type SseFraming } from '../stream/sse-writer.js'
import { A2AError } from '../wire/a2a-error.js'
import { restErrorBody, restStatus } from './rest-errors.js'
import { matchRoute, ROUTES, routeParams } from './rest-routes.js'

export interface RestHttpOptions extends GateOptions {
  call: Call
}

/** Each event's data is the StreamResponse itself; the closing error is a google.rpc.Status. */
const restFraming: SseFraming = {
  result: (resultJson) => resultJson,
  error: (error) => JSON.stringify(restErrorBody(error)),
}

/** A refusal as a `google.rpc.Status` body under `status`. */
export const restRefuser =
  (response: ServerResponse) =>
  (status: number, error: A2AError, headers: Record<string, string> = {}) => {
    noteOutcome(requestNote(response), { error })
    sendJson(response, status, restErrorBody(error, status), headers)
    return undefined
  }

/** Serves one request whose path below the binding's base is `pathname` (query excluded). */
export async function handleRest(options: RestHttpOptions, request: IncomingMessage, response: ServerResponse, pathname: string): Promise<void> {
  const note = noteBinding(response, 'http+json')
  const refuse = restRefuser(response)
  const verb = request.method ?? 'GET'
  try {
    const match = matchRoute(verb, pathname)
    if (!match) {
      const routes = ROUTES.map((r) => `${r.verbs.join('|')} /${r.pattern}`).join(', ')
      return refuse(404, new A2AError('METHOD_NOT_FOUND', `No HTTP+JSON route ${verb} ${pathname}; the routes are ${routes}`))
    }
    if ('allow' in match) {
      return refuse(405, A2AError.invalidRequest(`${verb} is not served on ${pathname}; use ${match.allow.join(' or ')}`), { Allow: match.allow.join(', ') })
    }
    const { route } = match
    if (note) note.method = route.method
    const admitted = await admit(options, request, refuse, route.body === 'required' || (route.body === 'optional' && hasBody(request)))
    if (!admitted) return
    const body = admitted.text === undefined ? undefined : decodeBody(admitted.text, route.method, admitted.repeated)
    negotiate(options, request, response)
    const query = body === undefined ? queryOf(request.url) : NO_QUERY
    const params = routeParams(match, query, body)
    if (note) note.params = params
    // As on JSON-RPC: decoding a large body was one stage, the method's work is the next.
    if (admitted.text !== undefined && admitted.text.length >= LARGE_TEXT) await nextTurn()
    const result = await options.call(admitted.principal, route.method, params, reresolver(options, request), baseUrlOf(options, request))
    noteOutcome(note, { result })
    if (result instanceof StreamReply) return result.start(new SseWriter(response, restFraming))
    sendJson(response, 200, result)
  } catch (error) {
    const refusal = refusalOf(error)
    if (refusal) return refuse(refusal.status, refusal.error, refusal.headers)
    if (error instanceof A2AError) return refuse(restStatus(error), error)
    options.logger.error(`a2a: internal error answering ${scrub(verb)} ${scrub(pathname)}: ${scrub(error)}`)
    refuse(500, A2AError.internal())
  }
}

/** A route's params come from its body or else its query: a request with a body, or with no query, parses no URL. */
const NO_QUERY = new URLSearchParams()
const queryOf = (url: string | undefined): URLSearchParams => (url?.includes('?') ? new URL(url, 'http://localhost').searchParams : NO_QUERY)

const hasBody = (request: IncomingMessage): boolean => Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined

/** The request message: one JSON object, refused like a JSON-RPC envelope when a top-level key repeats (`repeated`, from the admitting scan). */
function decodeBody(text: string, method: string, repeated: string | undefined): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw A2AError.parse((error as Error).message)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw A2AError.invalidRequest(`The body must be a JSON object: the ${method} request message`)
  }
  // Found by the limits scan as the body was admitted.
  if (repeated) throw A2AError.parse(repeated)
  return value as Record<string, unknown>
}
