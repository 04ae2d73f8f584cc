/** Skills the compat-v03 tests run, beside the push fixture's `work`: one that pauses for input once. */
import { defineSkill } from '../../skills/skill.js'

export { work } from '../../push/__fixture__/skills.js'

export const ask = defineSkill({
  id: 'ask',
  description: 'asks once',
  handler: async (ctx) => {
    if (ctx.history.length === 1) return ctx.requireInput('which one?')
    await ctx.complete(`you said ${ctx.text}`)
  },
})
