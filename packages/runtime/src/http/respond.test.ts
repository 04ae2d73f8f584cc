import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { sendJson } from './respond.js'

let server: Server | undefined
afterEach(() => {
  server?.close()
  server = undefined
})

async function serve(body: unknown): Promise<Response> {
  server = createServer((_request, response) => sendJson(response, 200, body, { 'X-Answer': 'yes' }))
  await once(server.listen(0, '127.0.0.1'), 'listening')
  return fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
}

describe('sendJson', () => {
  it('writes a small answer whole, its Content-Length in bytes', async () => {
    const response = await serve({ text: 'héllo' })
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('{"text":"héllo"}')))
    expect(response.headers.get('x-answer')).toBe('yes')
    expect(await response.json()).toEqual({ text: 'héllo' })
  })

  it('writes a large answer in slices that put it back together byte for byte, multi-byte characters across the cuts included', async () => {
    // Three-byte and four-byte characters, so slice boundaries fall inside them.
    const text = '€𝄞x'.repeat(50_000)
    const response = await serve({ text })
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(bytes.length).toBeGreaterThan(4 * 64 * 1024)
    expect(response.headers.get('content-length')).toBe(String(bytes.length))
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ text })
  })

  it('never cuts a slice between the halves of a surrogate pair', async () => {
    // After `{"text":"` (9 code units) every pair starts at an odd index, so a cut at 64 Ki units falls inside one.
    const text = '𝄞'.repeat(100_000)
    const response = await serve({ text })
    expect(JSON.parse(Buffer.from(await response.arrayBuffer()).toString('utf8'))).toEqual({ text })
  })
})

describe('answers of one turn', () => {
  /** A server that holds its first `count` requests, then answers them all in one turn; `during` runs in that turn. */
  async function answerTogether(count: number, during: (responses: ServerResponse[]) => void): Promise<number> {
    const held: ServerResponse[] = []
    server = createServer((_request, response) => {
      held.push(response)
      if (held.length < count) return
      held.forEach((each, i) => sendJson(each, 200, { answer: i }))
      during(held)
    })
    await once(server.listen(0, '127.0.0.1'), 'listening')
    return (server.address() as AddressInfo).port
  }

  it('are ended together once the turn is over, each whole', async () => {
    const endedInTurn: boolean[] = []
    const endedAfter: boolean[] = []
    const port = await answerTogether(4, (responses) => {
      endedInTurn.push(...responses.map((response) => response.writableEnded))
      setImmediate(() => endedAfter.push(...responses.map((response) => response.writableEnded)))
    })
    const answers = await Promise.all([0, 1, 2, 3].map(() => fetch(`http://127.0.0.1:${port}/`).then((response) => response.json())))
    expect(endedInTurn).toEqual([false, false, false, false])
    expect(endedAfter).toEqual([true, true, true, true])
    expect(answers.map((answer) => (answer as { answer: number }).answer).sort()).toEqual([0, 1, 2, 3])
  })

  it('still reach their clients when another connection of the turn closed before its answer went out', async () => {
    const port = await answerTogether(3, (responses) => responses[1]!.socket!.destroy())
    const outcomes = await Promise.allSettled([0, 1, 2].map(() => fetch(`http://127.0.0.1:${port}/`).then((response) => response.json())))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2)
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1)
  })
})
