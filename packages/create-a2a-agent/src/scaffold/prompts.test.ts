// The real @clack/prompts prompts, driven through streams as a terminal would drive them.
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { clackPrompter } from './prompts.js'

function terminal() {
  const input = new PassThrough()
  const output = new PassThrough()
  let shown = ''
  output.on('data', (chunk) => (shown += chunk))
  const type = (keys: string, delay: number) => new Promise<void>((resolve) => setTimeout(() => resolve(void input.write(keys)), delay))
  return { prompter: clackPrompter({ input, output }), type, shown: () => shown }
}

const ENTER = '\r'

describe('the clack prompter', () => {
  it('says why an answer is refused and asks again; an empty answer takes the placeholder', async () => {
    const { prompter, type, shown } = terminal()
    const validate = (value: string) => (value === 'taken' ? 'taken is not empty; pick a new folder name' : undefined)
    const answer = prompter.text({ message: 'Where should the agent go?', placeholder: 'my-agent', validate })
    await type(`taken${ENTER}`, 50)
    await type(`${'\x7f'.repeat(5)}${ENTER}`, 100)
    expect(await answer).toBe('my-agent')
    expect(shown()).toContain('taken is not empty; pick a new folder name')
    // Output that is no terminal gets no colour (Node's styleText, which also honours NO_COLOR).
    expect(shown()).not.toMatch(/\x1b\[3\dm/)
  })

  it('picks a choice with the arrow keys, and a cancel (Ctrl+C) rejects with an AbortError', async () => {
    const { prompter, type } = terminal()
    const choices = [
      { value: 'sqlite', label: 'SQLite' },
      { value: 'postgresql', label: 'PostgreSQL' },
    ] as const
    const picked = prompter.select({ message: 'Which database?', choices, initial: 'sqlite' })
    await type(`\x1b[B${ENTER}`, 50)
    expect(await picked).toBe('postgresql')
    const cancelled = prompter.confirm({ message: 'Install?', initial: true })
    await type('\x03', 50)
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' })
  })
})
