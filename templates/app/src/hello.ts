import { defineSkill } from '@a2a-agent/runtime'

/** A hand-written skill: greets the caller by the text they send. Add your own beside it. */
export const hello = defineSkill({
  id: 'hello',
  name: 'Hello',
  description: 'Greets you by the name you send.',
  examples: ['Ada'],
  handler: async (ctx) => {
    const name = ctx.text.trim() || 'there'
    await ctx.artifact({ name: 'greeting', parts: [{ text: `Hello, ${name}!`, mediaType: 'text/plain' }] })
    await ctx.complete()
  },
})
