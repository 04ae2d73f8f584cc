/** Skills the push tests run: one that emits every kind of event, one that answers at once. */
import { defineSkill } from '../../skills/skill.js'

export const work = defineSkill({
  id: 'work',
  description: 'works, emits an artifact, completes',
  handler: async (ctx) => {
    await ctx.working()
    await ctx.artifact({ name: 'out', parts: 'done' })
    await ctx.complete()
  },
})

export const echo = defineSkill({ id: 'echo', description: 'answers at once', handler: (ctx) => ctx.complete('echo') })
