/**
 * Streams bench floor: bare node:http that reads the body, parses it and opens an SSE stream with
 * a SUBMITTED task snapshot and a WORKING status event, held until POST /bench/finish, then a
 * COMPLETED event. No A2A work at all: what the HTTP layer, the sockets and the kernel cost per
 * stream on this machine. Prints `{"port":N}` once listening.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { listenBacklog, stopWithDriver } from './shared.js'

const held = new Set<{ response: ServerResponse; id: unknown; taskId: string }>()
let tasks = 0
const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`
const status = (taskId: string, state: string) => ({ statusUpdate: { taskId, contextId: `c-${taskId}`, status: { state, timestamp: new Date().toISOString() } } })

const server = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    if (request.url === '/bench/finish') {
      const count = held.size
      for (const stream of held) stream.response.end(frame(stream.id, status(stream.taskId, 'TASK_STATE_COMPLETED')))
      held.clear()
      return response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ tasks: count }))
    }
    if (request.url === '/bench/memory') {
      ;(globalThis as { gc?: () => void }).gc?.()
      return response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ...process.memoryUsage(), held: held.size, activeRuns: held.size }))
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; params: { message: unknown } }
    const taskId = `t-${++tasks}`
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    response.write(frame(body.id, { task: { id: taskId, contextId: `c-${taskId}`, status: { state: 'TASK_STATE_SUBMITTED' }, history: [body.params.message] } }))
    const stream = { response, id: body.id, taskId }
    held.add(stream)
    response.on('close', () => held.delete(stream))
    setImmediate(() => response.write(frame(body.id, status(taskId, 'TASK_STATE_WORKING'))))
  })
})
server.listen({ port: 0, host: '127.0.0.1', backlog: listenBacklog() }, () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })))

stopWithDriver(server)
