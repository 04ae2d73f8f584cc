import { createServer, type IncomingMessage, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { readBody, type BodyResult } from './read-body.js'

const EVENTS = ['data', 'end', 'error', 'close'] as const
const listeners = (request: IncomingMessage) => Object.fromEntries(EVENTS.map((event) => [event, request.listenerCount(event)]))

interface Seen {
  result: BodyResult
  before: Record<string, number>
  after: Record<string, number>
}

/**
 * A server that reads each request's body with readBody and then keeps the request open, as a
 * stream does: what it reports is the request's listeners before reading and once the body settled.
 */
function holdingServer(limits = { maxBodyBytes: 1024, bodyIdleTimeoutMs: 200 }): { server: Server; seen: Promise<Seen> } {
  let report: (seen: Seen) => void
  const seen = new Promise<Seen>((resolve) => (report = resolve))
  const server = createServer((request, response) => {
    const before = listeners(request)
    void readBody(request, limits).then((result) => {
      report({ result, before, after: listeners(request) })
      response.writeHead(200, { 'Content-Type': 'text/event-stream' }).write(': open\n\n')
    })
  })
  return { server, seen }
}

let server: Server | undefined
let socket: Socket | undefined
afterEach(async () => {
  socket?.destroy()
  server?.closeAllConnections()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
})

async function open(limits?: { maxBodyBytes: number; bodyIdleTimeoutMs: number }) {
  const held = holdingServer(limits)
  server = held.server
  await new Promise<void>((resolve) => held.server.listen(0, '127.0.0.1', resolve))
  socket = connect((held.server.address() as AddressInfo).port, '127.0.0.1')
  socket.on('error', () => {})
  return { seen: held.seen }
}

describe('readBody on a body still arriving', () => {
  it('removes every listener it added once the body is read, though the request stays open', async () => {
    const { seen } = await open()
    const body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}'
    socket!.write(`POST /a2a HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`)
    // The body after the headers: the parser has not buffered it, so readBody listens for it.
    await new Promise((resolve) => setTimeout(resolve, 50))
    socket!.write(body)
    const { result, before, after } = await seen
    expect(result).toEqual({ text: body })
    expect(after).toEqual(before)
  })

  it('removes them when the body stalls as well', async () => {
    const { seen } = await open({ maxBodyBytes: 1024, bodyIdleTimeoutMs: 100 })
    socket!.write('POST /a2a HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"jsonrpc"')
    const { result, before, after } = await seen
    expect(result).toEqual({ stalled: true })
    expect(after).toEqual(before)
  })
})
