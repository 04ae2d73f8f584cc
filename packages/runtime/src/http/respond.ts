/**
 * Writing JSON answers on a Node response.
 * @module
 */
import type { ServerResponse } from 'node:http'

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  })
  response.end(text)
}
