/**
 * Hand-written checks for request params. Each reads one value, records what is wrong with it at
 * its path, and returns the value it stands for; the caller throws once the whole value has been
 * read, so every problem is reported together. (The request path used zod, whose core loads ~64
 * locale modules, ~10 MiB, at start and costs a few µs per request; zod stays for entity tools.)
 * @module
 */

export type Key = string | number

export interface Issue {
  path: Key[]
  message: string
}

/** Where a check is and what has been found so far. */
export class Checking {
  readonly issues: Issue[] = []
  readonly #path: Key[] = []

  /** Records a problem at the current path, or below it at `more`. */
  fail(message: string, ...more: Key[]): void {
    this.issues.push({ path: [...this.#path, ...more], message })
  }

  /** Runs `check` on the value at `key` below the current path. */
  at<T>(key: Key, check: Check<T>, value: unknown): T {
    this.#path.push(key)
    const out = check(value, this)
    this.#path.pop()
    return out
  }
}

/** Reads `value`; on a problem records it on `c` and returns anything (the caller throws). */
export type Check<T> = (value: unknown, c: Checking) => T

/** A check that lets `undefined` (an absent field) through. */
export type Optional<T> = Check<T | undefined> & { readonly optional: true }

export const optional = <T>(check: Check<T>): Optional<T> =>
  Object.assign((value: unknown, c: Checking) => (value === undefined ? undefined : check(value, c)), { optional: true as const })

export type Shape = Record<string, Check<unknown>>
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S]
/** What an object of fields `S` reads as: optional fields may be absent. */
export type Fields<S extends Shape> = { [K in Exclude<keyof S, OptionalKeys<S>>]: ReturnType<S[K]> } & {
  [K in OptionalKeys<S>]?: Exclude<ReturnType<S[K]>, undefined>
}

const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : withArticle(typeof value))
const withArticle = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`)

/** "is required (string)" for an absent value, else "must be a string, not a number". */
export function wrongType(c: Checking, value: unknown, expected: string): undefined {
  c.fail(value === undefined ? `is required (${expected})` : `must be ${withArticle(expected)}, not ${kind(value)}`)
  return undefined
}

export const string: Check<string> = (value, c) => (typeof value === 'string' ? value : (wrongType(c, value, 'string') as never))

/** A string that `test` accepts; `message` says what it must be otherwise. */
export const stringThat =
  (test: (value: string) => boolean, message: string): Check<string> =>
  (value, c) => {
    if (typeof value !== 'string') return wrongType(c, value, 'string') as never
    if (!test(value)) c.fail(message)
    return value
  }

export const boolean: Check<boolean> = (value, c) => (typeof value === 'boolean' ? value : (wrongType(c, value, 'boolean') as never))

export const unknown: Check<unknown> = (value) => value

/** A JSON object of any values (metadata). */
export const jsonObject: Check<Record<string, unknown>> = (value, c) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : (wrongType(c, value, 'object') as never)

/** An array whose every item `item` reads; `nonEmpty` is the message for an empty one. */
export function array<T>(item: Check<T>, nonEmpty?: string): Check<T[]> {
  return (value, c) => {
    if (!Array.isArray(value)) return wrongType(c, value, 'array') as never
    if (nonEmpty && value.length === 0) c.fail(nonEmpty)
    const out: T[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) out[i] = c.at(i, item, value[i])
    return out
  }
}

/** ProtoJSON int32: a JSON number or a decimal string, whole, within `min`..`max` (`range` says so). */
export function int32(min: number, max: number, range: string): Check<number> {
  return (value, c) => {
    const n = typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value
    if (typeof n !== 'number') return wrongType(c, value, 'number') as never
    if (n < min || n > max) c.fail(range)
    else if (!Number.isInteger(n)) c.fail('must be an integer')
    return n
  }
}

/** Runs `check` on `value`: the value it reads as, or every problem found. */
export function runCheck<T>(check: Check<T>, value: unknown): { ok: true; value: T } | { ok: false; issues: Issue[] } {
  const c = new Checking()
  const out = check(value, c)
  return c.issues.length === 0 ? { ok: true, value: out } : { ok: false, issues: c.issues }
}
