/**
 * Bench ceiling: bare node:http that reads the body, parses it, and answers a fixed COMPLETED task
 * of the shape our exchange returns. No A2A work at all: what the HTTP layer alone costs per
 * request, the denominator of "× raw node:http". Prints `{"port":N}` once listening.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const answer = (id: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {
      task: {
        id: '6f1c1a52-3f0e-4c55-9d55-0a6f7cbbd2d1',
        contextId: '0b5e7f6c-0c55-4d0e-8e43-61b3a7d5c0aa',
        status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
        artifacts: [{ artifactId: 'a8d7c0d6-4e7a-4f4e-9b0e-9a4b7f3c2e11', name: 'result', parts: [{ text: 'ok', mediaType: 'text/plain' }] }],
        history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hello' }] }],
      },
    },
  })

const server = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }
    const text = answer(body.id ?? null)
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text)
  })
})
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })))

process.once('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
