/**
 * A real SSE client for tests: fetch + eventsource-parser. Each JSON-RPC event's data is parsed;
 * comments (keep-alives) are counted.
 * @module
 */
import { createParser } from 'eventsource-parser'

export interface SseEvent {
  event?: string | undefined
  id?: string | undefined
  data: any
}

export interface SseReply {
  status: number
  headers: Headers
  /** The JSON body when the server answered without opening a stream. */
  body?: any
  /** Events received so far. */
  events: SseEvent[]
  comments: number
  /** The next event, or undefined once the stream has ended. */
  next(): Promise<SseEvent | undefined>
  /** Resolves with every event once the server closes the stream. */
  ended: Promise<SseEvent[]>
  /** Closes the connection from the client side. */
  close(): void
}

export async function openSse(url: string, body: string, headers: Record<string, string>): Promise<SseReply> {
  const abort = new AbortController()
  const response = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers }, signal: abort.signal })
  const events: SseEvent[] = []
  const reply: SseReply = {
    status: response.status,
    headers: response.headers,
    events,
    comments: 0,
    next: async () => undefined,
    ended: Promise.resolve(events),
    close: () => abort.abort(),
  }
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await response.text()
    reply.body = text ? JSON.parse(text) : undefined
    return reply
  }
  let cursor = 0
  let done = false
  let wake: (() => void) | undefined
  const parser = createParser({
    onEvent: (message) => {
      events.push({ event: message.event, id: message.id, data: JSON.parse(message.data) })
      wake?.()
    },
    onComment: () => {
      reply.comments++
    },
  })
  reply.ended = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
    } catch {
      // The client closed the connection.
    }
    done = true
    wake?.()
    return events
  })()
  reply.next = async () => {
    while (cursor >= events.length && !done) await new Promise<void>((resolve) => (wake = resolve))
    return events[cursor++]
  }
  return reply
}
