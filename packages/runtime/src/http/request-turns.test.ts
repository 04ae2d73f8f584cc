import { beforeEach, describe, expect, it } from 'vitest'
import { inTurn, REQUESTS_PER_TURN } from './request-turns.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('inTurn', () => {
  // Two turns with nothing begun: the counter of the turn before is free again.
  beforeEach(async () => {
    await nextTurn()
    await nextTurn()
  })

  it('begins at most REQUESTS_PER_TURN requests a turn, the rest in later turns in arrival order', async () => {
    const begun: number[] = []
    const count = REQUESTS_PER_TURN * 2 + 10
    for (let i = 0; i < count; i++) inTurn(() => begun.push(i))
    expect(begun).toEqual(Array.from({ length: REQUESTS_PER_TURN }, (_, i) => i))
    await nextTurn()
    expect(begun.length).toBe(REQUESTS_PER_TURN * 2)
    await nextTurn()
    expect(begun).toEqual(Array.from({ length: count }, (_, i) => i))
  })

  it('makes a request that arrives while others wait wait behind them, and runs the next one at once once the queue is gone', async () => {
    const begun: string[] = []
    for (let i = 0; i < REQUESTS_PER_TURN + 1; i++) inTurn(() => begun.push(`a${i}`))
    // The share of this turn is taken: this one waits behind the last of the first burst.
    await Promise.resolve()
    inTurn(() => begun.push('late'))
    await nextTurn()
    expect(begun.slice(-2)).toEqual([`a${REQUESTS_PER_TURN}`, 'late'])
    await nextTurn()
    await nextTurn()
    inTurn(() => begun.push('alone'))
    expect(begun.at(-1)).toBe('alone')
  })
})
