import { once } from 'node:events'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { rpcFraming, SseWriter } from './sse-writer.js'

let server: Server | undefined
afterEach(() => {
  server?.closeAllConnections()
  server?.close()
  server = undefined
})

/** A server whose every request opens an SseWriter and hands it to `open`. */
async function serveStreams(open: (writer: SseWriter) => void): Promise<number> {
  server = createServer((_request, response) => open(new SseWriter(response, rpcFraming(1))))
  await once(server.listen(0, '127.0.0.1'), 'listening')
  return (server.address() as AddressInfo).port
}

/** Resolves once the response's head reaches the client; its body is read by bodyOf. */
function get(port: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => request({ port, host: '127.0.0.1', path: '/' }, resolve).on('error', reject).end())
}

const bodyOf = async (response: IncomingMessage): Promise<string> => {
  let text = ''
  for await (const chunk of response) text += String(chunk)
  return text
}

describe('SseWriter headers', () => {
  it('go out alone after the turn when the first event is not ready, so the client knows the stream is open', async () => {
    let writer: SseWriter | undefined
    const port = await serveStreams((opened) => (writer = opened))
    const response = await get(port)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/event-stream')
    writer!.sendEncoded('{"n":1}', 1)
    writer!.close()
    expect(await bodyOf(response)).toBe('id: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":1}}\n\n')
  })

  it('go out with the first event of the turn, and a stream closed within it sends only what it wrote', async () => {
    const port = await serveStreams((writer) => {
      writer.sendEncoded('{"n":2}')
      writer.close()
    })
    const response = await get(port)
    expect(response.headers['content-type']).toBe('text/event-stream')
    expect(await bodyOf(response)).toBe('data: {"jsonrpc":"2.0","id":1,"result":{"n":2}}\n\n')
  })
})
