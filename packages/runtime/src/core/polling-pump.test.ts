import { afterEach, expect, it } from 'vitest'
import { PollingPump } from './polling-pump.js'

const pumps: PollingPump[] = []
afterEach(async () => {
  await Promise.all(pumps.splice(0).map((pump) => pump.stop()))
})

/** A pump whose looks are held open until released, counting them. */
function heldPump(intervalMs = 60_000) {
  const looks: Array<() => void> = []
  const pump = new PollingPump(() => new Promise<void>((resolve) => looks.push(resolve)), intervalMs)
  pumps.push(pump)
  return { pump, looks }
}

it('pokes while a look runs make one more look once it ends, never a second beside it', async () => {
  const { pump, looks } = heldPump()
  pump.poke()
  pump.poke()
  pump.poke()
  expect(looks).toHaveLength(1)
  looks[0]!()
  await expect.poll(() => looks.length).toBe(2)
  looks[1]!()
  await new Promise((resolve) => setTimeout(resolve, 20))
  expect(looks).toHaveLength(2)
})

it('an idle pump looks again after its interval, also after a look that failed or ended at once', async () => {
  let looks = 0
  const failing = new PollingPump(() => (++looks % 2 ? Promise.reject(new Error('no database')) : undefined), 10)
  pumps.push(failing)
  failing.poke()
  await expect.poll(() => looks).toBeGreaterThanOrEqual(4)
})

it('stop() waits for the look under way, and no poke looks after it', async () => {
  const { pump, looks } = heldPump(10)
  pump.poke()
  let stopped = false
  const stopping = pump.stop().then(() => (stopped = true))
  await new Promise((resolve) => setTimeout(resolve, 20))
  expect(stopped).toBe(false)
  looks[0]!()
  await stopping
  pump.poke()
  await new Promise((resolve) => setTimeout(resolve, 40))
  expect(looks).toHaveLength(1)
})
