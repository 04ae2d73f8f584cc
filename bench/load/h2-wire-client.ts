/**
 * A load generator's HTTP/2 client, written on a bare TCP socket: requests are pre-encoded frames
 * (HEADERS as HPACK literals without indexing, then one DATA frame), answers are read by frame
 * type without decoding their headers. node:http2's client spends about 100 µs of CPU on each
 * request (a stream object, an async resource, header mapping), as much as the fastest server under
 * test spends answering it; on two shared cores that, not the server, would set the pace, as a
 * JavaScript HTTP/1.1 client would for the HTTP targets (those use wrk). What a server needs of a
 * client is kept: the connection preface, SETTINGS acknowledged, PINGs answered, flow control in
 * both directions.
 */
import { connect, type Socket } from 'node:net'

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1')
const DATA = 0x0
const HEADERS = 0x1
const RST_STREAM = 0x3
const SETTINGS = 0x4
const PING = 0x6
const GOAWAY = 0x7
const WINDOW_UPDATE = 0x8
const END_STREAM = 0x1
const END_HEADERS = 0x4
const ACK = 0x1
const PADDED = 0x8
const MAX_WINDOW = 2 ** 31 - 1
const DEFAULT_WINDOW = 65_535

export interface H2Answer {
  /** The DATA frames' payloads, in order. */
  data: Buffer[]
  /** Why the stream ended other than by END_STREAM (RST_STREAM's code, or the connection closing). */
  reset?: string
}

function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const header = Buffer.allocUnsafe(9)
  header.writeUIntBE(length, 0, 3)
  header[3] = type
  header[4] = flags
  header.writeUInt32BE(streamId, 5)
  return header
}

/** HPACK integer with an n-bit prefix (RFC 7541 §5.1). */
function hpackInteger(value: number, prefixBits: number, firstByte: number): number[] {
  const max = (1 << prefixBits) - 1
  if (value < max) return [firstByte | value]
  const bytes = [firstByte | max]
  let rest = value - max
  while (rest >= 128) {
    bytes.push((rest % 128) + 128)
    rest = Math.floor(rest / 128)
  }
  bytes.push(rest)
  return bytes
}

/** A header block of literal fields without indexing (RFC 7541 §6.2.2), so it holds no table state and can be sent again as it is. */
export function headerBlock(headers: Record<string, string>): Buffer {
  const bytes: number[] = []
  for (const [name, value] of Object.entries(headers)) {
    bytes.push(0x00)
    for (const text of [name, value]) {
      const raw = Buffer.from(text, 'latin1')
      bytes.push(...hpackInteger(raw.length, 7, 0x00), ...raw)
    }
  }
  return Buffer.from(bytes)
}

export class H2WireClient {
  readonly #socket: Socket
  #pending: Buffer = Buffer.alloc(0)
  #nextStream = 1
  readonly #streams = new Map<number, { answer: H2Answer; resolve: (answer: H2Answer) => void }>()
  /** The connection's send window (the server's receive window for request bodies). */
  #sendWindow = DEFAULT_WINDOW
  /** Requests waiting for the connection's send window, with the bytes each needs. */
  readonly #blocked: { bytes: number; send: () => void }[] = []
  #received = 0
  #corked = false
  #closed: string | undefined

  private constructor(socket: Socket) {
    this.#socket = socket
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.#read(chunk))
    socket.on('close', () => this.#closeAll('the connection closed'))
    socket.on('error', (error) => this.#closeAll(error.message))
    // Our settings: no server push, the widest stream window; then the connection window widened too.
    const settings = Buffer.alloc(12)
    settings.writeUInt16BE(0x2, 0)
    settings.writeUInt32BE(0, 2)
    settings.writeUInt16BE(0x4, 6)
    settings.writeUInt32BE(MAX_WINDOW, 8)
    socket.write(Buffer.concat([PREFACE, frameHeader(12, SETTINGS, 0, 0), settings, this.#windowUpdate(MAX_WINDOW - DEFAULT_WINDOW)]))
  }

  static open(host: string, port: number): Promise<H2WireClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host, () => {
        socket.off('error', reject)
        resolve(new H2WireClient(socket))
      })
      socket.once('error', reject)
    })
  }

  /** Sends one request (`block` from {@link headerBlock}, `body` as one DATA frame); resolves when the answer's stream ends. */
  request(block: Buffer, body: Buffer): Promise<H2Answer> {
    if (this.#closed) return Promise.resolve({ data: [], reset: this.#closed })
    const streamId = this.#nextStream
    this.#nextStream += 2
    return new Promise((resolve) => {
      this.#streams.set(streamId, { answer: { data: [] }, resolve })
      const send = () => {
        this.#sendWindow -= body.length
        this.#write(Buffer.concat([frameHeader(block.length, HEADERS, END_HEADERS, streamId), block, frameHeader(body.length, DATA, END_STREAM, streamId), body]))
      }
      if (this.#sendWindow >= body.length) send()
      else this.#blocked.push({ bytes: body.length, send })
    })
  }

  close(): void {
    this.#socket.end()
  }

  /** Writes of one tick go out in one syscall. */
  #write(bytes: Buffer): void {
    if (!this.#corked) {
      this.#corked = true
      this.#socket.cork()
      process.nextTick(() => {
        this.#corked = false
        this.#socket.uncork()
      })
    }
    this.#socket.write(bytes)
  }

  #windowUpdate(increment: number): Buffer {
    const payload = Buffer.allocUnsafe(4)
    payload.writeUInt32BE(increment, 0)
    return Buffer.concat([frameHeader(4, WINDOW_UPDATE, 0, 0), payload])
  }

  #read(chunk: Buffer): void {
    let buffer = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk
    while (buffer.length >= 9) {
      const length = buffer.readUIntBE(0, 3)
      if (buffer.length < 9 + length) break
      this.#frame(buffer[3]!, buffer[4]!, buffer.readUInt32BE(5) & MAX_WINDOW, buffer.subarray(9, 9 + length))
      buffer = buffer.subarray(9 + length)
    }
    this.#pending = buffer
  }

  #frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    switch (type) {
      case DATA: {
        const stream = this.#streams.get(streamId)
        const data = flags & PADDED ? payload.subarray(1, payload.length - payload[0]!) : payload
        if (stream && data.length) stream.answer.data.push(data)
        // The stream windows are as wide as HTTP/2 allows; the connection's is topped up past a gigabyte read.
        this.#received += payload.length
        if (this.#received > 2 ** 30) {
          this.#write(this.#windowUpdate(this.#received))
          this.#received = 0
        }
        if (flags & END_STREAM) this.#end(streamId)
        return
      }
      case HEADERS:
        if (flags & END_STREAM) this.#end(streamId)
        return
      case RST_STREAM:
        return this.#end(streamId, `RST_STREAM ${payload.readUInt32BE(0)}`)
      case SETTINGS:
        if (!(flags & ACK)) this.#write(frameHeader(0, SETTINGS, ACK, 0))
        return
      case PING:
        if (!(flags & ACK)) this.#write(Buffer.concat([frameHeader(8, PING, ACK, 0), payload]))
        return
      case WINDOW_UPDATE:
        if (streamId === 0) {
          this.#sendWindow += payload.readUInt32BE(0) & MAX_WINDOW
          while (this.#blocked.length && this.#sendWindow >= this.#blocked[0]!.bytes) this.#blocked.shift()!.send()
        }
        return
      case GOAWAY:
        return this.#closeAll(`GOAWAY ${payload.readUInt32BE(4)}`)
    }
  }

  #end(streamId: number, reset?: string): void {
    const stream = this.#streams.get(streamId)
    if (!stream) return
    this.#streams.delete(streamId)
    if (reset) stream.answer.reset = reset
    stream.resolve(stream.answer)
  }

  #closeAll(reason: string): void {
    this.#closed ??= reason
    for (const id of [...this.#streams.keys()]) this.#end(id, reason)
  }
}
