/**
 * gRPC load for the SendMessage bench: `concurrency` unary calls kept in flight on one HTTP/2
 * connection (as a gRPC client holds one) for `seconds`, each with a fresh messageId. The calls
 * are gRPC's wire format written straight on node:http2 (length-prefixed message, `grpc-status`
 * trailer), as wrk writes HTTP/1.1: a grpc-js client costs about what a grpc-js server does per
 * call, so on this 2-core machine it, not the server under test, would set the pace. Requests are
 * encoded and answers decoded with the runtime's A2AService codecs, so every server is sent the
 * same bytes and read the same way. No gRPC load tool (ghz, h2load) is installed here.
 */
import { connect, type ClientHttp2Session } from 'node:http2'
import { codecOf } from '../../packages/runtime/src/grpc/codec.js'

export interface GrpcLoadResult {
  rps: number
  p50: number
  p99: number
  errors: number
  requests: number
}

const SEND = '/lf.a2a.v1.A2AService/SendMessage'
const request = codecOf('lf.a2a.v1.SendMessageRequest')
const response = codecOf('lf.a2a.v1.SendMessageResponse')

let counter = 0
const runId = `${process.pid}-${Date.now()}`

/** A SendMessage request as one gRPC message: no compression flag, a 4-byte length, the protobuf bytes. */
function sendFrame(): Buffer {
  const message = request.encode({ message: { messageId: `bench-grpc-${runId}-${++counter}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } })
  const frame = Buffer.allocUnsafe(5 + message.length)
  frame[0] = 0
  frame.writeUInt32BE(message.length, 1)
  message.copy(frame, 5)
  return frame
}

const headersFor = (token: string) => ({
  ':method': 'POST',
  ':path': SEND,
  'content-type': 'application/grpc',
  te: 'trailers',
  authorization: `Bearer ${token}`,
  'a2a-version': '1.0',
})

class GrpcStatusError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`grpc-status ${code}: ${message}`)
  }
}

/** One unary call: the answer's message bytes, or a GrpcStatusError with the trailers' status. */
function call(session: ClientHttp2Session, headers: ReturnType<typeof headersFor>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers)
    const chunks: Buffer[] = []
    let grpcStatus = -1
    let grpcMessage = ''
    const read = (fields: Record<string, unknown>) => {
      if (fields['grpc-status'] !== undefined) {
        grpcStatus = Number(fields['grpc-status'])
        grpcMessage = decodeURIComponent(String(fields['grpc-message'] ?? ''))
      }
    }
    // A trailers-only answer (an error before any message) carries its status in the headers.
    stream.on('response', read)
    stream.on('trailers', read)
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('error', reject)
    stream.on('end', () => {
      if (grpcStatus !== 0) return reject(new GrpcStatusError(grpcStatus, grpcMessage))
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      resolve(body.subarray(5, 5 + body.readUInt32BE(1)))
    })
    stream.end(sendFrame())
  })
}

const completed = (answer: Buffer): boolean => (response.decode(answer).task as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_COMPLETED'

/** One SendMessage before measuring: a server that does not complete the task is not benchmarked; answers the task's id. */
export async function verifyGrpc(address: string, token: string): Promise<string> {
  const session = connect(`http://${address}`)
  try {
    const answer = await call(session, headersFor(token))
    const task = response.decode(answer).task as { id?: string } | undefined
    if (!completed(answer)) throw new Error(`gRPC SendMessage at ${address} did not answer a COMPLETED task: ${JSON.stringify(task)}`)
    return task!.id!
  } finally {
    session.close()
  }
}

export async function runGrpcLoad(address: string, token: string, concurrency: number, seconds: number): Promise<GrpcLoadResult> {
  const session = connect(`http://${address}`)
  await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject))
  const headers = headersFor(token)
  const latencies: number[] = []
  let errors = 0
  let answers = 0
  const end = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now()
      try {
        const answer = await call(session, headers)
        // One answer in 64 decoded and checked: decoding them all would take the servers' cores.
        if (++answers % 64 === 0 && !completed(answer)) errors++
        latencies.push(performance.now() - started)
      } catch {
        errors++
      }
    }
  }
  const began = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - began) / 1000
  session.close()
  latencies.sort((a, b) => a - b)
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors, requests: latencies.length }
}
