/** A webhook receiver on 127.0.0.1 that keeps every POST it is sent and answers 204. */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Hit {
  path: string
  headers: IncomingHttpHeaders
  body: any
}

export interface Receiver {
  /** The URL of `path` on this receiver. */
  url(path: string): string
  /** What was POSTed to `path`, in arrival order. */
  hitsOf(path: string): Hit[]
  close(): Promise<void>
}

export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = []
  const server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      hits.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(text) })
      response.writeHead(204).end()
    })
  }).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: (path) => `${base}${path}`,
    hitsOf: (path) => hits.filter((hit) => hit.path === path),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
