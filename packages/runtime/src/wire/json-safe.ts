/**
 * Task bodies are stored and sent as JSON, so values JSON cannot carry faithfully (NaN, Infinity,
 * functions, symbols, bigints, cycles) are refused up front rather than silently mangled.
 * @module
 */
import { badString, segment } from './limits.js'

export class NotJsonEncodableError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path} cannot be encoded as JSON: ${what}`)
    this.name = 'NotJsonEncodableError'
  }
}

/**
 * `value` as JSON text, refusing what JSON cannot carry; `path` names it in the error. One native
 * stringify does the encoding and finds cycles and bigints (it throws); the text shows every NUL and
 * lone surrogate (stringify escapes both); what it would drop or turn into null (non-finite
 * numbers, functions, symbols) is found by an allocation-free pass over the value. Only a value
 * that fails one of these is walked again, by {@link assertJsonEncodable}, to name the culprit.
 */
export function encodeJson(value: unknown, path: string): string {
  let text: string
  try {
    text = JSON.stringify(value)
  } catch (error) {
    findUnencodable(value, path)
    throw error
  }
  if (!scalarsFit(value, false) || hasForbiddenEscape(text)) findUnencodable(value, path)
  return text
}

/**
 * The JSON texts a store most recently encoded objects to (or parsed them from), so an answer
 * carrying one of those very objects sends the text instead of encoding it again: the task a run
 * just stored, the one GetTask just read. Looked up by identity among the last few (a WeakMap set
 * costs about what encoding a small task does); only texts up to {@link REMEMBERED_CHARS} are kept,
 * so the slots hold little once the tasks are gone. A text is remembered only where the runtime
 * does not change the object afterwards (each next task is a new object): an answer shows the task
 * as it was stored.
 */
const REMEMBERED = 64
const REMEMBERED_CHARS = 16 * 1024
const rememberedValues: (object | undefined)[] = new Array(REMEMBERED).fill(undefined)
const rememberedTexts: (string | undefined)[] = new Array(REMEMBERED).fill(undefined)
let nextSlot = 0

/** Remembers that `value` is `text` (which {@link encodeJson} made from it, or it was parsed from). */
export function rememberText(value: object, text: string): void {
  if (text.length > REMEMBERED_CHARS) return
  rememberedValues[nextSlot] = value
  rememberedTexts[nextSlot] = text
  nextSlot = (nextSlot + 1) % REMEMBERED
}

/** The text remembered for `value`, if it is still among the last few; newest first. */
export function rememberedText(value: object): string | undefined {
  for (let i = 1; i <= REMEMBERED; i++) {
    const at = (nextSlot - i + REMEMBERED) % REMEMBERED
    if (rememberedValues[at] === value) return rememberedTexts[at]
  }
  return undefined
}

/**
 * `value` as JSON text, as JSON.stringify writes it, reusing the text remembered for it or, for an
 * object of one member (a `{ task }` answer), for that member. Undefined for undefined.
 */
export function answerText(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null) {
    const whole = rememberedText(value)
    if (whole !== undefined) return whole
    let only: string | undefined
    for (const key in value) {
      if (only !== undefined || !Object.hasOwn(value, key)) return JSON.stringify(value)
      only = key
    }
    const member = only === undefined ? undefined : (value as Record<string, unknown>)[only]
    const text = typeof member === 'object' && member !== null ? rememberedText(member) : undefined
    if (text !== undefined && typeof (value as { toJSON?: unknown }).toJSON !== 'function') return `{${JSON.stringify(only)}:${text}}`
  }
  return JSON.stringify(value)
}

/**
 * Throws {@link NotJsonEncodableError} naming the first value JSON (or a store) cannot carry:
 * non-finite numbers, cycles, functions, symbols, bigints, and strings or keys holding U+0000 or
 * a lone surrogate, which PostgreSQL refuses and the other stores would keep. A deeply nested or
 * cyclic value cannot overflow the stack.
 */
export function assertJsonEncodable(value: unknown, path = 'value'): void {
  if (!scalarsFit(value, true)) findUnencodable(value, path)
}

/**
 * Whether every number in `value` is finite and nothing is a function, symbol or bigint (and, with
 * `strings`, no string or key breaks the string rule). False rather than an answer when it cannot
 * tell: a cycle or a very deep value ends in a RangeError here, and the iterative walk decides.
 */
function scalarsFit(value: unknown, strings: boolean): boolean {
  try {
    return fits(value, strings)
  } catch {
    return false
  }
}

function fits(value: unknown, strings: boolean): boolean {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value)
    case 'string':
      return !strings || badString(value) === undefined
    case 'boolean':
    case 'undefined':
      return true
    case 'object':
      if (value === null) return true
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!fits(value[i], strings)) return false
        return true
      }
      // for-in makes no array of keys; an inherited key it also sees can only send the value to the full walk.
      for (const key in value) {
        if (!fits((value as Record<string, unknown>)[key], strings) || (strings && badString(key) !== undefined)) return false
      }
      return true
    default:
      return false
  }
}

/** Whether JSON text escapes a U+0000 or a lone surrogate (`\u0000`, `\ud800`–`\udfff`) anywhere. */
function hasForbiddenEscape(text: string): boolean {
  for (let at = text.indexOf('\\u'); at >= 0; at = text.indexOf('\\u', at + 2)) {
    // An escape only if the backslash is not itself escaped (preceded by an even run of them).
    let before = 0
    while (text.charCodeAt(at - 1 - before) === BACKSLASH) before++
    if (before % 2 === 1) continue
    if (text.startsWith('0000', at + 2) || (text[at + 2] === 'd' && '89abcdef'.includes(text[at + 3]!))) return true
  }
  return false
}

const BACKSLASH = 0x5c

/** The iterative walk: throws {@link NotJsonEncodableError} naming the first value JSON cannot carry. */
function findUnencodable(value: unknown, path: string): void {
  // `leave` entries take an object off the current path once its children are done: shared
  // (acyclic) references are fine, only an object inside itself is a cycle.
  const stack: ({ value: unknown; path: string } | { leave: object })[] = [{ value, path }]
  const onPath = new Set<object>()
  while (stack.length) {
    const entry = stack.pop()!
    if ('leave' in entry) {
      onPath.delete(entry.leave)
      continue
    }
    const { value: item, path: at } = entry
    switch (typeof item) {
      case 'string': {
        const problem = badString(item)
        if (problem) throw new NotJsonEncodableError(at, problem)
        continue
      }
      case 'boolean':
      case 'undefined':
        continue
      case 'number':
        if (!Number.isFinite(item)) throw new NotJsonEncodableError(at, `${item} is not a finite number`)
        continue
      case 'object': {
        if (item === null || item instanceof Date) continue
        if (onPath.has(item)) throw new NotJsonEncodableError(at, 'it refers to itself (a cycle)')
        onPath.add(item)
        stack.push({ leave: item })
        if (Array.isArray(item)) {
          for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], path: `${at}[${i}]` })
          continue
        }
        const entries = Object.entries(item)
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, child] = entries[i]!
          const problem = badString(key)
          if (problem) throw new NotJsonEncodableError(`${at}${segment(key)}`, `its key ${problem}`)
          stack.push({ value: child, path: `${at}${segment(key)}` })
        }
        continue
      }
      default:
        throw new NotJsonEncodableError(at, `a ${typeof item} is not JSON`)
    }
  }
}
