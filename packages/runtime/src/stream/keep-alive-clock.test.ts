import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { joinKeepAlive, leaveKeepAlive, type KeepAliveMember } from './keep-alive-clock.js'

/** A member that records its beats; `stop()` makes it leave. */
function member(intervalMs: number, beats: number[]): { stop: () => void } {
  const joined: KeepAliveMember = { keepAlive: () => void beats.push(performance.now()) }
  joinKeepAlive(intervalMs, joined)
  return { stop: () => leaveKeepAlive(intervalMs, joined) }
}

/** Resolves once `done()` holds, polling; a busy machine delays timers, so no fixed wait. */
async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!done()) {
    if (performance.now() > deadline) throw new Error('timed out')
    await sleep(5)
  }
}

describe('the shared keep-alive clock', () => {
  it('beats a stream no sooner than about an interval after it joined and after its last beat, and never after it left', async () => {
    const joined = performance.now()
    const beats: number[] = []
    const { stop } = member(80, beats)
    await until(() => beats.length >= 3)
    stop()
    const count = beats.length
    // Timers may run late, never early: 16 ticks of 5 ms make one interval.
    expect(beats[0]! - joined).toBeGreaterThanOrEqual(70)
    for (let i = 1; i < beats.length; i++) expect(beats[i]! - beats[i - 1]!).toBeGreaterThanOrEqual(70)
    await sleep(200)
    expect(beats.length).toBe(count)
  })

  it('spreads the beats of streams that join at different moments over the interval', async () => {
    const first: number[] = []
    const second: number[] = []
    const { stop: stopFirst } = member(160, first)
    await sleep(80)
    const { stop: stopSecond } = member(160, second)
    await until(() => first.length > 0 && second.length > 0)
    stopFirst()
    stopSecond()
    // Different slots, so different ticks (10 ms each, at least): not one burst of writes.
    expect(second[0]! - first[0]!).toBeGreaterThanOrEqual(10)
  })
})
