/**
 * The skill the SendMessage benches run, on whichever runtime build the caller loaded (its
 * `defineSkill`): completes at once with a small text artifact. Plain JavaScript, so that
 * send-cpu.mjs, which runs without tsx under callgrind, shares it with the bench servers.
 */
export const doneSkill = (defineSkill) =>
  defineSkill({
    id: 'done',
    description: 'Completes at once with a small text artifact.',
    handler: async (ctx) => {
      await ctx.artifact({ name: 'result', parts: [{ text: 'ok', mediaType: 'text/plain' }] })
      await ctx.complete()
    },
  })
