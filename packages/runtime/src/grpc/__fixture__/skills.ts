import { defineSkill } from '../../skills/skill.js'

/** Completes with the text it was sent. */
export const echo = defineSkill({ id: 'echo', description: 'echo', handler: (ctx) => ctx.complete(ctx.text) })

/** Works until canceled: a task that stays open for streams to follow. */
export const hold = defineSkill({
  id: 'hold',
  description: 'works until canceled',
  handler: async (ctx) => {
    await ctx.working()
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
  },
})
