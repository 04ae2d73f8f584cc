/**
 * Bench ceiling: bare node:http that reads the body, parses it, and answers a fixed COMPLETED task
 * of the shape our exchange returns. No A2A work at all: what the HTTP layer alone costs per
 * request, the denominator of "× raw node:http". Prints `{"port":N}` once listening.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fixedTask } from './shared.js'

const answer = (id: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { task: fixedTask() },
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
