/**
 * Task bodies are stored and sent as JSON, so values JSON cannot carry faithfully (NaN, Infinity,
 * functions, symbols, bigints, cycles) are refused up front rather than silently mangled.
 * @module
 */

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

export function assertJsonEncodable(value: unknown, path = 'value', seen = new Set<object>()): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonEncodableError(path, `${value} is not a finite number`)
      return
    case 'undefined':
      return
    case 'object': {
      if (value === null) return
      if (seen.has(value)) throw new NotJsonEncodableError(path, 'it refers to itself (a cycle)')
      seen.add(value)
      if (Array.isArray(value)) value.forEach((item, i) => assertJsonEncodable(item, `${path}[${i}]`, seen))
      else if (value instanceof Date) return void seen.delete(value)
      else for (const [key, item] of Object.entries(value)) assertJsonEncodable(item, `${path}.${key}`, seen)
      seen.delete(value)
      return
    }
    default:
      throw new NotJsonEncodableError(path, `a ${typeof value} is not JSON`)
  }
}
