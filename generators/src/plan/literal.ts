/**
 * Prints JSON-like values as TypeScript literals in the repository's style (single quotes, bare
 * keys, trailing commas, 100 columns): a group stays on one line when it fits, else breaks one
 * entry per line, the way prettier lays out object literals.
 * @module
 */

const WIDTH = 100
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * `value` printed to start at column `column` (what precedes it on its first line) with `suffix`
 * width still to come on its last line (`,` or ` as const`); nested lines indent from `indent`.
 */
export function printLiteral(value: unknown, indent = '', column = indent.length, suffix = 0): string {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'string') return quote(value)
  if (Array.isArray(value))
    return group(
      '[',
      ']',
      value.map((item) => ({ text: '', item })),
      indent,
      column,
      suffix,
    )
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([key, item]) => ({ text: `${printKey(key)}: `, item }))
    return group('{', '}', entries, indent, column, suffix, true)
  }
  throw new Error(`cannot print ${typeof value} as a literal`)
}

function group(open: string, close: string, entries: { text: string; item: unknown }[], indent: string, column: number, suffix: number, spaced = false): string {
  if (entries.length === 0) return `${open}${close}`
  const pad = spaced ? ' ' : ''
  const flat = `${open}${pad}${entries.map(({ text, item }) => text + printFlat(item)).join(', ')}${pad}${close}`
  if (column + flat.length + suffix <= WIDTH) return flat
  const inner = `${indent}  `
  const lines = entries.map(({ text, item }) => `${inner}${text}${printLiteral(item, inner, inner.length + text.length, 1)},`)
  return `${open}\n${lines.join('\n')}\n${indent}${close}`
}

/** `value` on one line, however long. */
function printFlat(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(printFlat).join(', ')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
    return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${printKey(key)}: ${printFlat(item)}`).join(', ')} }`
  }
  return printLiteral(value)
}

/** A string in single quotes, or in double quotes when that needs fewer escapes (prettier's rule). */
export function quote(text: string): string {
  const singles = text.split("'").length - 1
  const doubles = text.split('"').length - 1
  const mark = singles > doubles ? '"' : "'"
  let out = ''
  for (const char of text) {
    if (char === mark || char === '\\') out += `\\${char}`
    else if (char === '\n') out += '\\n'
    else if (char === '\r') out += '\\r'
    else if (char === '\t') out += '\\t'
    else if (/[\u0000-\u001f\u2028\u2029]/.test(char)) out += `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
    else out += char
  }
  return `${mark}${out}${mark}`
}

export const printKey = (key: string): string => (IDENTIFIER.test(key) ? key : quote(key))

/**
 * An object literal from ready-made entries (`key: expression`, `...spread`), on one line when it
 * fits from `column` with `suffix` after it, else one entry per line.
 */
export function printObject(entries: readonly string[], indent: string, column: number, suffix = 0): string {
  if (entries.length === 0) return '{}'
  const flat = `{ ${entries.join(', ')} }`
  if (column + flat.length + suffix <= WIDTH) return flat
  return `{\n${entries.map((entry) => `${indent}  ${entry},`).join('\n')}\n${indent}}`
}

/** `type Name = 'a' | 'b'`, laid out as prettier does: one line, then the union on the next, then one member per line. */
export function printUnionAlias(name: string, members: readonly string[]): string {
  const union = members.join(' | ')
  if (`type ${name} = ${union}`.length <= WIDTH) return `type ${name} = ${union}`
  if (`  ${union}`.length <= WIDTH) return `type ${name} =\n  ${union}`
  return `type ${name} =\n${members.map((member) => `  | ${member}`).join('\n')}`
}
