/**
 * gRPC's message framing over HTTP/2 (grpc/doc/PROTOCOL-HTTP2.md): each message is a compressed
 * flag byte, a 4-byte big-endian length, then the bytes. Compressed messages are read for the
 * encodings grpc-js and grpc-go send (gzip, deflate); answers go uncompressed, which every client
 * accepts.
 * @module
 */
import { gunzipSync, inflateSync } from 'node:zlib'
import { GrpcStatus, plainError, type GrpcError } from './grpc-status.js'

export const ACCEPT_ENCODING = 'identity,deflate,gzip'
const PREFIX = 5

/** A message as one frame: uncompressed, length-prefixed. */
export function frame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(PREFIX + message.length)
  framed[0] = 0
  framed.writeUInt32BE(message.length, 1)
  message.copy(framed, PREFIX)
  return framed
}

/** Why a request body cannot be read: the status it is answered with. */
export class FrameError extends Error {
  constructor(readonly status: GrpcError) {
    super(status.message)
  }
}

/** An encoding the server cannot read, refused before the body is read, as the protocol asks. */
export function unreadableEncoding(encoding: string | undefined): GrpcError | undefined {
  if (encoding === undefined || encoding === 'identity' || encoding === 'gzip' || encoding === 'deflate') return undefined
  const error = plainError(GrpcStatus.UNIMPLEMENTED, `grpc-encoding "${encoding}" is not supported; send identity, deflate or gzip`)
  error.trailers['grpc-accept-encoding'] = ACCEPT_ENCODING
  return error
}

/**
 * The messages of a request body, read as its chunks arrive. A message past `maxLength` is
 * refused as soon as its length prefix is read, before its bytes are held.
 */
export class MessageReader {
  readonly #maxLength: number
  readonly #encoding: string | undefined
  #pending: Buffer[] = []
  #pendingBytes = 0
  readonly messages: Buffer[] = []

  constructor(maxLength: number, encoding: string | undefined) {
    this.#maxLength = maxLength
    this.#encoding = encoding
  }

  /** Takes a chunk of the body; throws a FrameError for a message it will not read. */
  push(chunk: Buffer): void {
    this.#pending.push(chunk)
    this.#pendingBytes += chunk.length
    while (this.#pendingBytes >= PREFIX) {
      const head = this.#pending[0]!.length >= PREFIX ? this.#pending[0]! : this.#flatten()
      const length = head.readUInt32BE(1)
      if (length > this.#maxLength) throw new FrameError(plainError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${this.#maxLength})`))
      if (this.#pendingBytes < PREFIX + length) return
      const body = this.#pending.length === 1 ? head : this.#flatten()
      this.messages.push(this.#message(body[0]!, body.subarray(PREFIX, PREFIX + length)))
      const rest = body.subarray(PREFIX + length)
      this.#pending = rest.length ? [rest] : []
      this.#pendingBytes = rest.length
    }
  }

  /** Throws a FrameError when the body ended inside a message. */
  end(): void {
    if (this.#pendingBytes > 0) throw new FrameError(plainError(GrpcStatus.INTERNAL, `The request ended inside a message (${this.#pendingBytes} bytes of a frame)`))
  }

  #flatten(): Buffer {
    const whole = Buffer.concat(this.#pending, this.#pendingBytes)
    this.#pending = [whole]
    return whole
  }

  #message(flag: number, bytes: Buffer): Buffer {
    if (flag === 0) return bytes
    if (flag !== 1) throw new FrameError(plainError(GrpcStatus.INTERNAL, `A message's compressed flag is ${flag}; gRPC has 0 and 1`))
    if (this.#encoding === undefined || this.#encoding === 'identity') {
      throw new FrameError(plainError(GrpcStatus.INTERNAL, 'A message is marked compressed, but the call names no grpc-encoding'))
    }
    try {
      const inflate = this.#encoding === 'gzip' ? gunzipSync : inflateSync
      return inflate(bytes, { maxOutputLength: this.#maxLength })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new FrameError(plainError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message that decompresses to a size larger than ${this.#maxLength}`))
      }
      throw new FrameError(plainError(GrpcStatus.INTERNAL, `A ${this.#encoding} message did not decompress: ${(error as Error).message}`))
    }
  }
}

const TIMEOUT = /^(\d{1,8})([HMSmun])$/
const UNIT_MS = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000_001 } as const

/** `grpc-timeout` (`100m`, `5S`) in milliseconds; undefined when absent or malformed (grpc-js ignores a malformed one too). */
export function timeoutMs(header: string | undefined): number | undefined {
  const match = header === undefined ? null : TIMEOUT.exec(header)
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined
}

/** `grpc-message` as the protocol has it: UTF-8, each byte outside printable ASCII (and `%`) percent-encoded. */
export function encodeGrpcMessage(message: string): string {
  // The common case, plain ASCII without `%`, goes as it is.
  if (/^[\x20-\x24\x26-\x7e]*$/.test(message)) return message
  let out = ''
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}
