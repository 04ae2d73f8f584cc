/**
 * gRPC load for the SendMessage bench: `concurrency` unary calls kept in flight on one HTTP/2
 * connection (as a gRPC client holds one) for `seconds`, each with a fresh messageId. The calls
 * are gRPC's wire format (length-prefixed message) in pre-encoded HTTP/2 frames on a bare socket
 * (./h2-wire-client.ts), as wrk writes HTTP/1.1: a grpc-js client, or node:http2's, costs about what
 * the fastest server does per call, so on this 2-core machine it, not the server under test, would
 * set the pace. Requests are encoded and answers decoded with the runtime's A2AService codecs, so
 * every server is sent the same bytes and read the same way. h2load (Debian's nghttp2-client) sends
 * one body again and again, and SendMessage needs a fresh messageId each time.
 */
import { connect, type ClientHttp2Session } from 'node:http2'
import { codecOf } from '../../packages/runtime/src/grpc/codec.js'
import { H2WireClient, headerBlock } from './h2-wire-client.js'

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

const runId = `${process.pid}-${Date.now()}`
/** The counter's digits in each messageId: fixed width, so every request is the template with those bytes rewritten. */
const DIGITS = 12
const template = sendTemplate()
let counter = 0

/**
 * A SendMessage request as one gRPC message (no compression flag, a 4-byte length, the protobuf
 * bytes), encoded once; each call copies it and writes its own counter into the messageId's last
 * DIGITS bytes, so the load costs a copy per call instead of a protobuf encode.
 */
function sendTemplate(): { frame: Buffer; digitsAt: number } {
  const marker = '9'.repeat(DIGITS)
  const message = request.encode({ message: { messageId: `bench-grpc-${runId}-${marker}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } })
  const frame = Buffer.allocUnsafe(5 + message.length)
  frame[0] = 0
  frame.writeUInt32BE(message.length, 1)
  message.copy(frame, 5)
  return { frame, digitsAt: frame.indexOf(`-${marker}`) + 1 }
}

function sendFrame(): Buffer {
  const frame = Buffer.from(template.frame)
  frame.write(String(++counter).padStart(DIGITS, '0'), template.digitsAt, 'latin1')
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
  const url = new URL(`http://${address}`)
  const client = await H2WireClient.open(url.hostname, Number(url.port))
  const block = headerBlock({ ':method': 'POST', ':scheme': 'http', ':path': SEND, ':authority': address, ...withoutPseudo(headersFor(token)) })
  const latencies: number[] = []
  let errors = 0
  let answers = 0
  const end = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now()
      const answer = await client.request(block, sendFrame())
      // A trailers-only answer (no message) is an error status; one answer in 64 is decoded and
      // checked too: decoding them all would take the servers' cores.
      if (answer.reset || answer.data.length === 0 || (++answers % 64 === 0 && !completed(messageOf(answer.data)))) errors++
      else latencies.push(performance.now() - started)
    }
  }
  const began = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - began) / 1000
  client.close()
  latencies.sort((a, b) => a - b)
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors, requests: latencies.length }
}

const withoutPseudo = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':')))

function messageOf(data: Buffer[]): Buffer {
  const body = data.length === 1 ? data[0]! : Buffer.concat(data)
  return body.subarray(5, 5 + body.readUInt32BE(1))
}
