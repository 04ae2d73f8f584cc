/**
 * The skill the streams benches run, on whichever runtime build the caller loaded (its
 * `defineSkill`): `hold` goes WORKING and waits for control signals, appending one chunk carrying
 * its emit time (`stamp()`) on each `tick()` and completing on `finish()`. Plain JavaScript, so
 * that stream-cpu.mjs, which runs without tsx under callgrind, shares it with streams-server.ts.
 */

/** One held task: a queue of control signals its handler takes in order. */
class Holder {
  #queue = []
  #wake = undefined

  constructor(abort) {
    this.abort = abort
    abort.addEventListener('abort', () => this.#wake?.(), { once: true })
  }

  push(signal) {
    this.#queue.push(signal)
    this.#wake?.()
  }

  async next() {
    while (this.#queue.length === 0) {
      if (this.abort.aborted) return 'aborted'
      await new Promise((resolve) => (this.#wake = resolve))
      this.#wake = undefined
    }
    return this.#queue.shift()
  }
}

export function holdSkill(defineSkill, stamp) {
  const holders = new Set()
  /** Writes of the current tick, so a tick's caller can wait until every chunk is stored and fanned out. */
  let tickWrites = []

  const skill = defineSkill({
    id: 'hold',
    description: 'Holds the task open, appending a timestamped chunk on every bench tick',
    handler: async (ctx) => {
      const holder = new Holder(ctx.signal)
      holders.add(holder)
      try {
        await ctx.working()
        let artifactId
        for (;;) {
          const signal = await holder.next()
          // A cut run (cancel, timeout, shutdown) is settled by the runtime; nothing more to write.
          if (signal === 'aborted') return
          if (signal === 'finish') break
          // Stamped just before the write: the measured latency includes the store write and fan-out.
          const write = ctx.artifact({ ...(artifactId ? { artifactId, append: true } : { name: 'ticks' }), parts: [{ text: stamp().toFixed(3) }] })
          tickWrites.push(write)
          artifactId = await write
        }
        await ctx.complete()
      } finally {
        holders.delete(holder)
      }
    },
  })

  return {
    skill,
    /** Handlers waiting for a signal. */
    get held() {
      return holders.size
    },
    /** Every held task appends one chunk; resolves with the tick's writes once every handler has queued its own. */
    async tick() {
      tickWrites = []
      for (const holder of holders) holder.push('tick')
      // Handlers wake on microtasks; one macrotask later every write of this tick has been queued.
      await new Promise((resolve) => setImmediate(resolve))
      return tickWrites
    },
    /** Every held task completes; returns how many were told. */
    finish() {
      const count = holders.size
      for (const holder of holders) holder.push('finish')
      return count
    },
  }
}
