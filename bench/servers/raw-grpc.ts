/**
 * Bench ceiling for gRPC: a bare grpc-js server whose SendMessage decodes the request and answers
 * a fixed COMPLETED task, encoded once. No A2A work at all: what grpc-js and HTTP/2 alone cost per
 * call, the gRPC analogue of raw.ts. Prints `{"port":N}` once listening.
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js'
import { codecOf } from '../../packages/runtime/src/grpc/codec.js'
import { fixedTask } from './shared.js'

const request = codecOf('lf.a2a.v1.SendMessageRequest')
const answer = codecOf('lf.a2a.v1.SendMessageResponse').encode({ task: fixedTask() })
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
