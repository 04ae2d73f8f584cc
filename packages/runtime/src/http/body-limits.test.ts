import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { createHttpServer } from './http-server.js'

const echo = defineSkill({ id: 'echo', description: 'echo', handler: async (ctx) => void (await ctx.artifact({ parts: ctx.text })) })

/** Opens a raw connection, writes `head` (and nothing else), and collects what the server sends until it closes. */
function rawRequest(url: string, head: string | Buffer): { socket: Socket; answer: Promise<{ text: string; ms: number }> } {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  const started = performance.now()
  socket.write(head)
  const answer = new Promise<{ text: string; ms: number }>((resolve) => {
    let text = ''
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('close', () => resolve({ text, ms: performance.now() - started }))
    socket.on('error', () => {})
  })
  return { socket, answer }
}

const headers = (path: string, extra: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n${extra}\r\n`

describe('request bodies and slow clients', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({
      skills: [echo],
      bodyIdleTimeoutMs: 300,
      serverTimeouts: { headersTimeoutMs: 400, requestTimeoutMs: 5000, timeoutCheckIntervalMs: 100 },
    })
  })
  afterAll(() => server.close())

  it('answers 413 to a declared Content-Length over the cap before any of the body is sent', async () => {
    const { socket, answer } = rawRequest(server.url, headers('/a2a', `Content-Length: ${50 * 1024 * 1024}\r\n`))
    const { text, ms } = await answer
    socket.destroy()
    expect(text).toMatch(/^HTTP\/1\.1 413 /)
    expect(text).toContain('over the 1048576-byte limit (maxBodyBytes)')
    expect(text.toLowerCase()).toContain('connection: close')
    // No body was sent: the answer came without waiting for one.
    expect(ms).toBeLessThan(250)
  })

  it('answers 408 to a body that stops arriving for bodyIdleTimeoutMs, and closes the connection', async () => {
    const { answer } = rawRequest(server.url, `${headers('/a2a', 'Content-Length: 100\r\n')}{"jsonrpc":`)
    const { text, ms } = await answer
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(text).toContain('stopped arriving for 300 ms (bodyIdleTimeoutMs)')
    expect(ms).toBeGreaterThanOrEqual(280)
    expect(ms).toBeLessThan(2000)
  })

  it('keeps waiting for a body that trickles in under the idle time', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } })
    const { socket, answer } = rawRequest(server.url, headers('/a2a', `Content-Length: ${body.length}\r\nConnection: close\r\n`))
    for (let i = 0; i < body.length; i += 16) {
      await new Promise((resolve) => setTimeout(resolve, 60))
      socket.write(body.slice(i, i + 16))
    }
    const { text } = await answer
    expect(text).toMatch(/^HTTP\/1\.1 200 /)
    expect(text).toContain('"code":-32001')
  })

  it("cuts a client whose headers never finish with the server's own headers timeout", async () => {
    const { answer } = rawRequest(server.url, 'POST /a2a HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
    const { text, ms } = await answer
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(ms).toBeLessThan(2000)
  })

  it('applies the same body rules to MCP', async () => {
    const tools = await import('../entity/notes-fixture.js')
    const mcp = await startTestServer({ tools: tools.testRegistry(), bodyIdleTimeoutMs: 300 })
    try {
      const big = rawRequest(mcp.url, headers('/mcp', `Content-Length: ${50 * 1024 * 1024}\r\n`))
      expect((await big.answer).text).toMatch(/^HTTP\/1\.1 413 /)
      const stalled = rawRequest(mcp.url, `${headers('/mcp', 'Content-Length: 100\r\n')}{`)
      expect((await stalled.answer).text).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      await mcp.close()
    }
  })
})

describe('bodies that came with their headers and bodies still arriving, alike', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ skills: [echo], maxBodyBytes: 120 })
  })
  afterAll(() => server.close())

  const small = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }))
  const large = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x'.repeat(200) } }))
  const notUtf8 = Buffer.from([0x7b, 0x22, 0xff, 0x7d])

  /**
   * Sends `body` with Content-Length (or in one chunk of chunked encoding), in the same write as the
   * headers or once the server has begun on the request.
   */
  async function send(body: Buffer, whole: boolean, framing: 'length' | 'chunked' = 'length'): Promise<string> {
    const head = headers('/a2a', `${framing === 'length' ? `Content-Length: ${body.length}` : 'Transfer-Encoding: chunked'}\r\nConnection: close\r\n`)
    const framed = framing === 'length' ? body : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
    const { socket, answer } = rawRequest(server.url, whole ? Buffer.concat([Buffer.from(head), framed]) : head)
    if (!whole) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      socket.write(framed)
    }
    return (await answer).text
  }

  for (const whole of [true, false]) {
    const when = whole ? 'sent with the headers' : 'sent after them'
    it(`reads a body under the cap ${when}, with Content-Length or chunked`, async () => {
      for (const framing of ['length', 'chunked'] as const) {
        const text = await send(small, whole, framing)
        expect(text).toMatch(/^HTTP\/1\.1 200 /)
        expect(text).toContain('"code":-32001')
      }
    })

    it(`answers 413 to a chunked body over the cap ${when}`, async () => {
      const text = await send(large, whole, 'chunked')
      expect(text).toMatch(/^HTTP\/1\.1 413 /)
      expect(text).toContain('over the 120-byte limit (maxBodyBytes)')
    })

    it(`answers -32700 to a body that is not UTF-8 ${when}`, async () => {
      const text = await send(notUtf8, whole)
      expect(text).toMatch(/^HTTP\/1\.1 200 /)
      expect(text).toContain('"code":-32700')
    })
  }
})

describe('createHttpServer', () => {
  it('sets the timeouts explicitly, and refuses a headers timeout longer than the request timeout', () => {
    const server = createHttpServer(() => {})
    expect({ headers: server.headersTimeout, request: server.requestTimeout, keepAlive: server.keepAliveTimeout }).toEqual({ headers: 10_000, request: 60_000, keepAlive: 5_000 })
    expect(() => createHttpServer(() => {}, { headersTimeoutMs: 20_000, requestTimeoutMs: 10_000 })).toThrow('headersTimeoutMs (20000) must not exceed requestTimeoutMs (10000)')
  })
})
