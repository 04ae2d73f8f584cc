/**
 * SendStreamingMessage and SubscribeToTask. A stream takes a seat first, so a caller at the seat cap
 * is refused (HTTP 429) before anything is written: no task row, no run slot.
 * @module
 */
import { canSee, tierOf, viewerOf } from '../core/principal.js'
import { HttpRefusal } from '../core/http-refusal.js'
import type { EventSink, StreamCloseListener } from '../stream/sse-writer.js'
import type { SeatHolder } from '../stream/stream-seats.js'
import { TaskStream, type FollowOptions, type Rechecker } from '../stream/task-stream.js'
import type { TaskRecord } from '../store/store.js'
import { A2AError } from '../wire/a2a-error.js'
import { sendMessageParams, subscribeParams, type SendMessageParams } from '../wire/params.js'
import { isTerminal } from '../wire/types.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { parse, type Caller, type Method, type StreamingOptions } from './method.js'
import { pushOnSend } from './push-on-send.js'
import { acceptMessage, type AcceptHooks } from './send-message.js'
import { findVisible } from './task-queries.js'

/**
 * No deadline frees a stream seat (a stream lasts as long as its task's turn), so Retry-After is a
 * short pause in which the caller's other streams may end; a client that cannot wait polls GetTask.
 */
const SEAT_RETRY = { 'Retry-After': '5' }

/** What a streaming method answers: the binding opens its stream (an SSE response, a gRPC server stream) and hands it over. */
export class StreamReply {
  constructor(readonly start: (sink: EventSink) => void) {}
}

const noStreaming = () => Promise.reject(A2AError.unsupported('Streaming is not enabled on this agent (capabilities.streaming is false); call SendMessage and poll GetTask'))

export const SendStreamingMessage: Method = ({ streaming, push }) =>
  streaming
    ? async (core, caller, raw) => {
        const params = parse(core, sendMessageParams, raw)
        return sendStreamingMessage(core, caller, params, streaming, await pushOnSend(core, caller, params, push))
      }
    : noStreaming

export const SubscribeToTask: Method = ({ streaming }) =>
  streaming ? (core, caller, raw) => subscribeToTask(core, caller, parse(core, subscribeParams, raw), streaming) : noStreaming

export async function sendStreamingMessage(
  core: ExchangeCore,
  caller: Caller,
  params: SendMessageParams,
  options: StreamingOptions,
  attachPush: AcceptHooks['attachPush'],
): Promise<StreamReply> {
  const seat = new StreamSeat(core, caller, options)
  let stream: TaskStream | undefined
  try {
    const observe = (accepted: TaskRecord) => void (stream = new TaskStream(core, accepted.id, accepted))
    const record = await acceptMessage(core, caller, params, { observe, ...(attachPush ? { attachPush } : {}) })
    // A retried messageId accepts nothing new: follow the task it made, from the store.
    stream ??= new TaskStream(core, record.id)
    const follow = { until: 'interrupted', directReply: true, historyLength: params.configuration?.historyLength } as const
    return reply(caller, stream, options, seat, follow)
  } catch (error) {
    stream?.stop()
    seat.release()
    throw error
  }
}

export async function subscribeToTask(core: ExchangeCore, caller: Caller, params: { id: string }, options: StreamingOptions): Promise<StreamReply> {
  const record = await findVisible(core, caller.viewer, params.id)
  if (isTerminal(record.task.status.state)) {
    throw A2AError.unsupported(`Task ${record.id} is already ${record.task.status.state}; a stream ends at a terminal state, so read it with GetTask`)
  }
  const seat = new StreamSeat(core, caller, options)
  // Through INPUT_REQUIRED and AUTH_REQUIRED: a subscriber waits for whoever answers the task.
  return reply(caller, new TaskStream(core, record.id), options, seat, { until: 'terminal' })
}

/**
 * A stream's seat among its owner's (and its API key's): taken when made, given back when the
 * stream ends. It holds the caller it seats, and checks them again at each keep-alive: the one
 * object per stream that knows the caller, so the stream keeps no closure for that.
 */
class StreamSeat implements SeatHolder, StreamCloseListener, Rechecker {
  readonly #core: ExchangeCore
  readonly #caller: Caller
  readonly #options: StreamingOptions
  /** The key's seat's owner, when keys are capped. */
  readonly #key: string | undefined
  #sink: EventSink | undefined
  /** Set when the seat was taken away before or while streaming. */
  #evicted = false

  /** Throws a 429 refusal when the caller is at a cap that refuses. */
  constructor(core: ExchangeCore, caller: Caller, options: StreamingOptions) {
    this.#core = core
    this.#caller = caller
    this.#options = options
    const owner = caller.viewer.owner
    if (!options.seats.claim(owner, this)) {
      throw new HttpRefusal(429, A2AError.unsupported(`Too many concurrent streams: at most ${options.seats.limit} per caller; close one or poll GetTask`), SEAT_RETRY)
    }
    // Per API key as well, refused at its cap (a key shared by several processes of one caller).
    const key = caller.principal.credential ?? owner
    if (options.keySeats && !options.keySeats.claim(key, this)) {
      options.seats.release(owner, this)
      throw new HttpRefusal(429, A2AError.unsupported(`Too many concurrent streams on this API key: at most ${options.keySeats.limit}; close one or poll GetTask`), SEAT_RETRY)
    }
    this.#key = options.keySeats ? key : undefined
  }

  /** The owner's cap evicts its oldest stream (a key's cap only refuses). */
  evict(): void {
    this.#evicted = true
    this.#sink?.fail(this.#evictedError())
  }

  streamClosed(): void {
    this.release()
  }

  release(): void {
    this.#options.seats.release(this.#caller.viewer.owner, this)
    if (this.#key !== undefined) this.#options.keySeats!.release(this.#key, this)
  }

  bind(sink: EventSink): void {
    this.#sink = sink
    sink.onClose(this)
    if (this.#evicted) sink.fail(this.#evictedError())
  }

  /** The caller's credentials are resolved again; a caller who lost access, or moved tenant, is cut off. */
  async recheck(taskId: string): Promise<A2AError | undefined> {
    const core = this.#core
    let principal
    try {
      principal = await this.#caller.reresolve!()
    } catch {
      // A lookup that failed (its database is away) is not a refusal: tried again at the next keep-alive.
      return undefined
    }
    if (!principal) return new A2AError('UNAUTHENTICATED', 'Stream closed: the credentials that opened it are no longer valid')
    // A read that failed (the database is away) keeps the stream open, tried again at the next keep-alive.
    const record = await core.store.get(taskId).catch(() => null)
    if (record === null) return undefined
    if (!record || !canSee((core.viewerOf ?? viewerOf)(principal), tierOf(record))) return A2AError.taskNotFound(taskId)
    return undefined
  }

  #evictedError(): A2AError {
    return A2AError.unsupported(`Stream closed: you opened more than ${this.#options.seats.limit} concurrent streams, and the oldest is closed first`)
  }
}

function reply(caller: Caller, stream: TaskStream, options: StreamingOptions, seat: StreamSeat, turn: Pick<FollowOptions, 'until' | 'directReply' | 'historyLength'>): StreamReply {
  return new StreamReply((sink) => {
    seat.bind(sink)
    const follow: FollowOptions = {
      until: turn.until,
      directReply: turn.directReply,
      historyLength: turn.historyLength,
      keepAliveMs: options.keepAliveMs,
      pollMs: options.pollMs,
      recheck: caller.reresolve && seat,
    }
    stream.follow(sink, follow)
  })
}
