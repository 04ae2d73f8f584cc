/**
 * The JSON-RPC binding's HTTP side: POST only, then the gate (origin, principal, content type,
 * body cap), the envelope, version and extensions, then the method itself. Transport refusals
 * stay HTTP statuses; everything a caller can act on is a JSON-RPC error on 200.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { scrub } from '../log/logger.js'
import { noteBinding, noteOutcome, requestNote } from '../http/request-log.js'
import { LARGE_TEXT, nextTurn } from '../core/turns.js'
import { A2AError } from '../wire/a2a-error.js'
import { checkEnvelopeLimits } from '../wire/limits.js'
import { decodeEnvelope, EnvelopeError, rpcError, rpcResult, type JsonRpcId } from '../wire/json-rpc.js'
import type { Call } from '../methods/method.js'
import { StreamReply } from '../methods/streaming.js'
import { rpcFraming, SseWriter } from '../stream/sse-writer.js'
import { admit, baseUrlOf, negotiate, reresolver, type GateOptions } from '../http/gate.js'
import { refusalOf } from '../http/refusal-of.js'
import { sendJson, sendJsonText } from '../http/respond.js'
import { answerText } from '../wire/json-safe.js'
import { claimV03, type V03Request } from '../compat-v03/rpc-v03.js'

export interface RpcHttpOptions extends GateOptions {
  /** Longest string id an envelope may carry. */
  maxIdLength: number
  /** A2A 0.3 requests are served (compat-v03/) instead of refused with -32009. */
  v03?: boolean
  call: Call
}

/** A transport refusal: an HTTP status with a JSON-RPC error body for clients that read it (`id` once the envelope named one). */
export const rpcRefuser =
  (response: ServerResponse) =>
  (status: number, error: A2AError, headers: Record<string, string> = {}, id: JsonRpcId = null) => {
    noteOutcome(requestNote(response), { error })
    sendJson(response, status, rpcError(id, error), headers)
    return undefined
  }

export async function handleRpc(options: RpcHttpOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const note = noteBinding(response, 'jsonrpc')
  const refuse = rpcRefuser(response)
  if (request.method !== 'POST') {
    return refuse(405, A2AError.invalidRequest('The A2A endpoint takes JSON-RPC requests by POST'), { Allow: 'POST' })
  }
  let id: JsonRpcId = null
  let v03: V03Request | undefined
  try {
    const admitted = await admit(options, request, refuse, true, 'params')
    if (!admitted) return
    const envelope = decodeEnvelope(admitted.text!, admitted.repeated)
    checkEnvelopeLimits(envelope, options.maxIdLength)
    id = envelope.id
    v03 = options.v03 ? claimV03(options, request, envelope.method) : undefined
    if (note) {
      note.method = envelope.method
      note.params = envelope.params
    }
    if (v03) v03.negotiate(options, request, response)
    else negotiate(options, request, response)
    // Decoding a large body was one stage; the method's work comes in the next turn.
    if (admitted.text!.length >= LARGE_TEXT) await nextTurn()
    const result = v03
      ? await v03.run((method, params) => options.call(admitted.principal, method, params, reresolver(options, request), baseUrlOf(options, request), '0.3'), envelope.params)
      : await options.call(admitted.principal, envelope.method, envelope.params, reresolver(options, request), baseUrlOf(options, request))
    noteOutcome(note, { result })
    if (result instanceof StreamReply) return result.start(new SseWriter(response, v03 ? v03.framing(id) : rpcFraming(id)))
    sendRpcResult(response, id, result)
  } catch (error) {
    const refusal = refusalOf(error)
    if (refusal) return refuse(refusal.status, refusal.error, refusal.headers, id)
    noteOutcome(note, { error })
    if (error instanceof EnvelopeError) return sendJson(response, 200, rpcError(error.id, error.error))
    if (error instanceof A2AError) return v03?.streams ? v03.failStream(response, id, error) : sendJson(response, 200, rpcError(id, error))
    options.logger.error(`a2a: internal error answering request ${scrub(id)}: ${scrub(error)}`)
    sendJson(response, 200, rpcError(id, A2AError.internal()))
  }
}

/** The result's envelope around its text: a task the store encoded is sent as its stored text. */
function sendRpcResult(response: ServerResponse, id: JsonRpcId, result: unknown): void {
  const text = answerText(result)
  if (text === undefined) return sendJson(response, 200, rpcResult(id, result))
  sendJsonText(response, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${text}}`)
}
