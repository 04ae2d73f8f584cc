/**
 * Bench ceiling for gRPC: a bare grpc-js server whose SendMessage decodes the request and answers
 * a fixed COMPLETED task, encoded once. No A2A work at all: what grpc-js and HTTP/2 alone cost per
 * call, the gRPC analogue of raw.ts. Prints `{"port":N}` once listening.
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js'
import { codecOf } from '../../packages/runtime/src/grpc/codec.js'

const request = codecOf('lf.a2a.v1.SendMessageRequest')
const answer = codecOf('lf.a2a.v1.SendMessageResponse').encode({
  task: {
    id: '6f1c1a52-3f0e-4c55-9d55-0a6f7cbbd2d1',
    contextId: '0b5e7f6c-0c55-4d0e-8e43-61b3a7d5c0aa',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
    artifacts: [{ artifactId: 'a8d7c0d6-4e7a-4f4e-9b0e-9a4b7f3c2e11', name: 'result', parts: [{ text: 'ok', mediaType: 'text/plain' }] }],
    history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hello' }] }],
  },
})
const bytes = (value: Buffer) => value

const server = new Server()
server.addService(
  {
    SendMessage: {
      path: '/lf.a2a.v1.A2AService/SendMessage',
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: (value: Buffer) => request.decode(value),
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  },
  { SendMessage: (_call: ServerUnaryCall<unknown, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, answer) },
)
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error
  console.log(JSON.stringify({ port }))
})

process.once('SIGTERM', () => server.tryShutdown(() => process.exit(0)))
