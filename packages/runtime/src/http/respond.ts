/**
 * Writing JSON answers on a Node response.
 * @module
 */
import type { ServerResponse } from 'node:http'

/**
 * Answers longer than this are written a slice at a time, the next once the last has drained, so
 * other callers' requests run between the slices of a large answer (a ListTasks page, a task
 * holding a 1 MiB text) instead of waiting for all of it.
 */
const SLICE_BYTES = 64 * 1024

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // Encoded once: its length is the Content-Length and the bytes are what is written.
  const data = Buffer.from(JSON.stringify(body))
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': data.length,
    ...headers,
  })
  writeSlices(response, data, 0)
}

function writeSlices(response: ServerResponse, data: Buffer, offset: number): void {
  for (let start = offset; ; start += SLICE_BYTES) {
    const end = start + SLICE_BYTES
    if (end >= data.length) return void response.end(data.subarray(start))
    // A closed connection drains never; its response is dropped with it.
    if (!response.write(data.subarray(start, end))) return void response.once('drain', () => writeSlices(response, data, end))
  }
}
