/**
 * Request messages read the way ProtoJSON parsers read them: each field under its lowerCamelCase
 * JSON name or its original proto name (`taskId` / `task_id`), `null` meaning the field's default,
 * int32 fields as numbers or decimal strings, unknown fields ignored. One field sent under both
 * names is refused, since the two values could differ. An unknown field that is a near miss of a
 * known one is noted, so a typo shows up in the logs instead of as a silently wrong answer.
 * @module
 */
import { type Checking, wrongType, type Check, type Fields, type Shape } from './check.js'

/** Unknown fields close to a known name, collected while one parse runs (parsing is synchronous). */
let nearMisses: string[] | undefined

/** Runs `parse`, returning its result and the near misses it saw. */
export function collectNearMisses<T>(parse: () => T): { value: T; nearMisses: string[] } {
  const outer = nearMisses
  nearMisses = []
  try {
    const value = parse()
    return { value, nearMisses }
  } finally {
    nearMisses = outer
  }
}

export interface ProtoMessageOptions<S extends Shape> {
  /** Fields where `null` is a value (google.protobuf.Value), not "unset". */
  nullValued?: readonly (keyof S & string)[]
  /** Further rules over the whole message, run once its fields read without a problem. */
  refine?: (message: Fields<S>, c: Checking) => void
}

/**
 * A proto request message of the given fields (keyed by JSON name); `label` names it in notes.
 * Reads as a new object holding the fields that were sent, in the shape's order.
 */
export function protoMessage<S extends Shape>(label: string, shape: S, options: ProtoMessageOptions<S> = {}): Check<Fields<S>> {
  const known = Object.keys(shape)
  const protoNames = known.map(toProtoName)
  const byProtoName = new Map(known.map((name, i) => [protoNames[i]!, name]))
  const nullValued = new Set<string>(options.nullValued ?? [])
  return (input, c) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return wrongType(c, input, 'object') as never
    const sent = input as Record<string, unknown>
    const before = c.issues.length
    for (const key of Object.keys(sent)) {
      if (Object.hasOwn(shape, key)) continue
      const name = byProtoName.get(key)
      if (name === undefined) noteIfNearMiss(label, key, known)
      else if (Object.hasOwn(sent, name)) sentTwice(c, sent, name, key)
    }
    const out: Record<string, unknown> = {}
    for (let i = 0; i < known.length; i++) {
      const name = known[i]!
      const protoName = protoNames[i]!
      let value = Object.hasOwn(sent, name) ? sent[name] : protoName !== name && Object.hasOwn(sent, protoName) ? sent[protoName] : undefined
      if (value === null && !nullValued.has(name)) value = undefined
      const read = c.at(name, shape[name]!, value)
      if (read !== undefined) out[name] = read
    }
    if (options.refine && c.issues.length === before) options.refine(out as Fields<S>, c)
    return out as Fields<S>
  }
}

/** One field sent under both its names: refused, since the two values could differ. */
function sentTwice(c: Checking, sent: Record<string, unknown>, name: string, protoName: string): void {
  const keys = Object.keys(sent)
  const [earlier, later] = keys.indexOf(name) < keys.indexOf(protoName) ? [name, protoName] : [protoName, name]
  c.fail(`is sent twice, as "${earlier}" and as "${later}"; send it once, as "${name}"`, name)
}

/** `contextId` → `context_id`. */
export const toProtoName = (jsonName: string): string => jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

function noteIfNearMiss(label: string, key: string, known: readonly string[]): void {
  if (!nearMisses) return
  const folded = fold(key)
  const limit = folded.length <= 5 ? 1 : 2
  const match = known.find((name) => fold(name) === folded) ?? known.find((name) => editDistance(fold(name), folded) <= limit)
  if (match) nearMisses.push(`ignored unknown field ${label}.${key}; did you mean ${label}.${match}?`)
}

const fold = (name: string): string => name.toLowerCase().replaceAll('_', '')

/** Levenshtein distance, with an adjacent swap counted as one edit. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  const rows = [...Array(a.length + 1)].map((_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}
