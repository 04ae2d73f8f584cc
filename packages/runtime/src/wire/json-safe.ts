/**
 * Task bodies are stored and sent as JSON, so values JSON cannot carry faithfully (NaN, Infinity,
 * functions, symbols, bigints, cycles) are refused up front rather than silently mangled.
 * @module
 */
import { badString, segment } from './limits.js'

export class NotJsonEncodableError extends Error {
  constructor(readonly path: string, what: string) {
    super(`${path} cannot be encoded as JSON: ${what}`)
    this.name = 'NotJsonEncodableError'
  }
}

/** `value` as JSON text, refusing what JSON cannot carry; `path` names it in the error. */
export function encodeJson(value: unknown, path: string): string {
  assertJsonEncodable(value, path)
  return JSON.stringify(value)
}

/**
 * Throws {@link NotJsonEncodableError} naming the first value JSON (or a store) cannot carry:
 * non-finite numbers, cycles, functions, symbols, bigints, and strings or keys holding U+0000 or
 * a lone surrogate, which PostgreSQL refuses and the other stores would keep. Iterative, so a deeply
 * nested value cannot overflow the stack.
 */
export function assertJsonEncodable(value: unknown, path = 'value'): void {
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
