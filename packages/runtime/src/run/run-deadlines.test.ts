import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import { createExchange, type Exchange } from '../exchange/exchange.js'
import { defineSkill } from '../skills/skill.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const done = defineSkill({
  id: 'done',
  description: 'completes at once',
  handler: async (ctx) => {
    await ctx.artifact({ name: 'result', parts: 'ok' })
    await ctx.complete()
  },
})

let exchange: Exchange | undefined
afterEach(() => exchange?.shutdown({ timeoutMs: 100 }))

/** The heap in use once everything unreachable is collected. */
function heapUsed(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

describe('run deadlines', () => {
  it('keeps nothing of runs that settled, for a caller that awaits sends back to back and never yields to the event loop', async () => {
    exchange = createExchange({ skills: [done], resolvePrincipal: () => ({ owner: 'alice' }), card: { name: 'a', description: 'a', version: '0' } })
    let n = 0
    const sends = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const answer = (await exchange!.call({ owner: 'alice' }, 'SendMessage', { message: { messageId: `m-${n++}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } })) as {
          task: { status: { state: string } }
        }
        expect(answer.task.status.state).toBe('TASK_STATE_COMPLETED')
      }
    }
    // Past the store's retention bound (64 settled tasks per tier): from here on the store holds no more.
    await sends(500)
    const before = heapUsed()
    await sends(10_000)
    const retainedPerSend = (heapUsed() - before) / 10_000
    // Each run waited, with the task it held, for a deadline turn that never came: about 2.4 KB a send.
    expect(retainedPerSend).toBeLessThan(100)
  })
})

describe('armed deadlines', () => {
  it('keeps nothing of runs that outlived their first turn and then settled (their queue entries go with them)', async () => {
    // Past the first turn, so each run's deadline is armed; then it completes.
    const late = defineSkill({
      id: 'late',
      description: 'completes a turn later',
      handler: async (ctx) => {
        await new Promise((resolve) => setImmediate(resolve))
        await ctx.complete()
      },
    })
    exchange = createExchange({ skills: [late], resolvePrincipal: () => ({ owner: 'alice' }), card: { name: 'a', description: 'a', version: '0' }, maxConcurrentRunsPerOwner: -1 })
    let n = 0
    const sends = async (count: number) => {
      for (let i = 0; i < count; i += 100) {
        const batch = Array.from({ length: 100 }, () =>
          exchange!.call({ owner: 'alice' }, 'SendMessage', { message: { messageId: `m-${n++}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
        )
        for (const answer of (await Promise.all(batch)) as { task: { status: { state: string } } }[]) expect(answer.task.status.state).toBe('TASK_STATE_COMPLETED')
      }
    }
    await sends(500)
    const before = heapUsed()
    await sends(5000)
    const retainedPerSend = (heapUsed() - before) / 5000
    // A run kept by its deadline's queue holds its task and context: kilobytes a send.
    expect(retainedPerSend).toBeLessThan(200)
  })
})
