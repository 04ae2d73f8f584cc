import { setTimeout as sleep } from 'node:timers/promises'
import { defineSkill } from '@a2a-agent/runtime'

/** Completes at once with a text artifact echoing the message's text. */
export const echo = defineSkill({
  id: 'echo',
  name: 'Echo',
  description: 'Echoes the text you send as a text artifact.',
  examples: ['hello'],
  handler: async (ctx) => {
    await ctx.artifact({ name: 'echo', parts: [{ text: ctx.text, mediaType: 'text/plain' }] })
    await ctx.complete()
  },
})

/** Pauses for input, then completes with the answer: resume by sending a message with the taskId. */
export const ask = defineSkill({
  id: 'ask',
  name: 'Ask',
  description: 'Asks for your name (INPUT_REQUIRED), then greets you. Answer with a message naming the taskId.',
  handler: async (ctx) => {
    if (ctx.history.length === 1) return ctx.requireInput('What is your name?')
    await ctx.artifact({ name: 'greeting', parts: `Hello, ${ctx.text}!` })
    await ctx.complete()
  },
})

/** Streams one artifact chunk a second for ten seconds; cancel stops it. */
export const slow = defineSkill({
  id: 'slow',
  name: 'Slow count',
  description: 'Counts to ten, one artifact chunk a second. Cancel it to stop early.',
  handler: async (ctx) => {
    await ctx.working()
    let artifactId: string | undefined
    for (let i = 1; i <= 10; i++) {
      await sleep(1000, undefined, { signal: ctx.signal })
      artifactId = await ctx.artifact({ artifactId, name: 'count', parts: `${i}\n`, append: i > 1, lastChunk: i === 10 })
    }
    await ctx.complete()
  },
})

/** Fails with a reason, to show how failure reaches the caller. */
export const fail = defineSkill({
  id: 'fail',
  name: 'Fail',
  description: 'Always fails, with the reason in the status message.',
  handler: (ctx) => ctx.fail(`cannot do "${ctx.text}": this skill always fails`),
})
