/**
 * Writing JSON answers on a Node response.
 * @module
 */
import type { ServerResponse } from 'node:http'
import { TurnBatch } from '../core/turns.js'
import { answerText } from '../wire/json-safe.js'

/**
 * Answers longer than this (in UTF-16 code units) are written a slice at a time, the next once the
 * last has drained, so other callers' requests run between the slices of a large answer (a
 * ListTasks page, a task holding a 1 MiB text) instead of waiting for all of it. Each slice is
 * encoded to UTF-8 as it is written, so neither is the encoding of the whole done in one go.
 */
const SLICE_CHARS = 64 * 1024

/** Answers `body` as JSON; a task a store encoded (or a `{ task }` around one) is sent as its stored text. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(response, status, answerText(body) ?? 'null', headers)
}

/** Answers JSON text made by the caller. */
export function sendJsonText(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  })
  writeSlices(response, text, 0)
}

function writeSlices(response: ServerResponse, text: string, offset: number): void {
  for (let start = offset; ; ) {
    let end = start + SLICE_CHARS
    if (end >= text.length) return ending.add({ response, text: text.slice(start) })
    // Never between the halves of a surrogate pair: each slice must encode on its own.
    if (isHighSurrogate(text.charCodeAt(end - 1))) end--
    // A closed connection drains never; its response is dropped with it.
    if (!response.write(text.slice(start, end))) return void response.once('drain', () => writeSlices(response, text, end))
    start = end
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/**
 * Answers finished within one turn of the event loop are ended together once the turn is over,
 * in the order they finished. A socket write to a client on the same host wakes the client's
 * thread, which costs the writer more than the write (a cross-CPU wake-up, dear on a VM); written
 * back to back, a turn's answers wake it about once. On bench:send-message (32 connections) that
 * took ours-bare from 85-96 to 55-59 µs of server CPU per SendMessage, mostly kernel time. An
 * answer waits at most for the rest of its turn's callbacks.
 */
const ending = new TurnBatch<{ response: ServerResponse; text: string }>((answers) => {
  // A response whose connection closed meanwhile takes the end and writes nothing.
  for (const { response, text } of answers) response.end(text)
})
