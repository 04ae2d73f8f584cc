/**
 * The dispatcher's bounds, kept per receiver (an owner's URL origin), per owner and for the
 * process: deliveries in flight, and configs with events waiting. Each level's bound is wider
 * than the one inside it, and a level counts only what waits within the inner bound: final
 * states admitted past a receiver's bound take none of its owner's room (nor an owner's past its
 * bound the process's), so a receiver that never answers cannot crowd out its neighbours.
 * @module
 */

export interface SlotBounds {
  inFlight: number
  ownerInFlight: number
  receiverInFlight: number
  waiting: number
  ownerWaiting: number
  receiverWaiting: number
}

interface Counts {
  inFlight: number
  /** Configs with events waiting (for an owner: as counted against its bound). */
  waiting: number
}

export interface Receiver<Waiting> extends Counts {
  key: string
  owner: Counts & { key: string }
  /** Configs with waiting events and no delivery out, oldest first. */
  queue: Waiting[]
}

export class ReceiverSlots<Waiting> {
  readonly #max: SlotBounds
  readonly #owners = new Map<string, Counts & { key: string }>()
  /** Receivers with a delivery out or a config waiting; map order is the round robin. */
  readonly #receivers = new Map<string, Receiver<Waiting>>()
  #inFlight = 0
  /** As counted against the process bound. */
  #waiting = 0
  #waitingTotal = 0

  constructor(max: SlotBounds) {
    this.#max = max
  }

  get inFlight(): number {
    return this.#inFlight
  }

  /** Every config with events waiting, within the bounds or past them. */
  get waiting(): number {
    return this.#waitingTotal
  }

  receiverOf(owner: string, url: string): Receiver<Waiting> {
    const key = `${owner}\u0000${originOf(url)}`
    let receiver = this.#receivers.get(key)
    if (!receiver) {
      let counts = this.#owners.get(owner)
      if (!counts) this.#owners.set(owner, (counts = { key: owner, inFlight: 0, waiting: 0 }))
      receiver = { key, owner: counts, inFlight: 0, waiting: 0, queue: [] }
      this.#receivers.set(key, receiver)
    }
    return receiver
  }

  canStart(receiver: Receiver<Waiting>): boolean {
    return this.#inFlight < this.#max.inFlight && receiver.owner.inFlight < this.#max.ownerInFlight && receiver.inFlight < this.#max.receiverInFlight
  }

  /** Room for one more waiting config at every level. */
  hasRoom(receiver: Receiver<Waiting>): boolean {
    return this.#waiting < this.#max.waiting && receiver.owner.waiting < this.#max.ownerWaiting && receiver.waiting < this.#max.receiverWaiting
  }

  /** A delivery to `receiver` starts (+1) or ends (-1). */
  countInFlight(receiver: Receiver<Waiting>, delta: 1 | -1): void {
    this.#inFlight += delta
    receiver.inFlight += delta
    receiver.owner.inFlight += delta
  }

  /** A config of `receiver` starts (+1) or stops (-1) waiting. */
  countWaiting(receiver: Receiver<Waiting>, delta: 1 | -1): void {
    this.#waitingTotal += delta
    const owner = receiver.owner
    const ownerBefore = Math.min(owner.waiting, this.#max.ownerWaiting)
    owner.waiting += within(receiver.waiting, receiver.waiting + delta, this.#max.receiverWaiting)
    receiver.waiting += delta
    this.#waiting += Math.min(owner.waiting, this.#max.ownerWaiting) - ownerBefore
  }

  /** Receivers in round-robin order (a snapshot: the caller may rotate while it walks). */
  receivers(): Receiver<Waiting>[] {
    return [...this.#receivers.values()]
  }

  /** Sends `receiver` to the back of the round robin. */
  rotate(receiver: Receiver<Waiting>): void {
    this.#receivers.delete(receiver.key)
    this.#receivers.set(receiver.key, receiver)
  }

  /** Forgets a receiver (and its owner) with nothing in flight or waiting. */
  forgetIfIdle(receiver: Receiver<Waiting>): void {
    if (receiver.inFlight > 0 || receiver.waiting > 0 || receiver.queue.length > 0) return
    this.#receivers.delete(receiver.key)
    const owner = receiver.owner
    if (owner.inFlight === 0 && owner.waiting === 0) this.#owners.delete(owner.key)
  }
}

/** The change in `min(count, bound)` when a count moves from `before` to `after`. */
function within(before: number, after: number, bound: number): number {
  return Math.min(after, bound) - Math.min(before, bound)
}

/** Receivers are told apart by origin: scheme, host and port. */
function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
