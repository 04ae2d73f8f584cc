/**
 * The questions `create-a2a-agent` asks in a terminal, through @clack/prompts (as create-t3-app and
 * create-mastra do): arrow-key choices, a spinner on long steps, and a line saying why an answer is
 * refused. Colour follows Node's styleText, so NO_COLOR and output that is not a terminal get none.
 * @module
 */
import type { Readable, Writable } from 'node:stream'
import * as clack from '@clack/prompts'
import type { Progress } from './progress.js'

export interface Choice<T extends string> {
  value: T
  label: string
  hint?: string
}

/** What the scaffolder asks; injected, so tests answer without a terminal. Cancelling rejects with an AbortError. */
export interface Prompter {
  /** A line of text; `validate` returns why an answer is refused, and the question is asked again. */
  text(options: { message: string; placeholder: string; validate: (value: string) => string | undefined }): Promise<string>
  select<T extends string>(options: { message: string; choices: readonly Choice<T>[]; initial: T }): Promise<T>
  confirm(options: { message: string; initial: boolean }): Promise<boolean>
}

function cancelled(): never {
  throw Object.assign(new Error('cancelled at a prompt'), { name: 'AbortError' })
}

function answered<T>(value: T | symbol): T {
  if (clack.isCancel(value)) cancelled()
  return value as T
}

/** Prompts on `input`/`output` (the process's terminal by default). */
export function clackPrompter(streams: { input?: Readable; output?: Writable } = {}): Prompter {
  return {
    async text({ message, placeholder, validate }) {
      // An empty answer takes the placeholder, which is then validated like any other.
      const value = answered<string>(await clack.text({ ...streams, message, placeholder, defaultValue: placeholder, validate: (value) => validate(value || placeholder) }))
      return value || placeholder
    },
    async select<T extends string>({ message, choices, initial }: { message: string; choices: readonly Choice<T>[]; initial: T }) {
      const options = choices.map(({ value, label, hint }) => ({ value, label, ...(hint !== undefined && { hint }) }))
      return answered<T>(await clack.select({ ...streams, message, options: options as never, initialValue: initial }))
    },
    async confirm({ message, initial }) {
      return answered<boolean>(await clack.confirm({ ...streams, message, initialValue: initial }))
    },
  }
}

/** Long steps as a clack spinner: the label while it runs, then done with its time, or failed. */
export function spinnerProgress(output?: Writable): Progress {
  return async (label, work) => {
    const spin = clack.spinner({ ...(output && { output }) })
    spin.start(label)
    const started = Date.now()
    try {
      const result = await work()
      spin.stop(`${label}: done (${((Date.now() - started) / 1000).toFixed(1)} s)`)
      return result
    } catch (error) {
      spin.error(`${label}: failed`)
      throw error
    }
  }
}
