/**
 * Request messages read the way ProtoJSON parsers read them: each field under its lowerCamelCase
 * JSON name or its original proto name (`taskId` / `task_id`), `null` meaning the field's default,
 * int32 fields as numbers or decimal strings, unknown fields ignored. One field sent under both
 * names is refused, since the two values could differ. An unknown field that is a near miss of a
 * known one is noted, so a typo shows up in the logs instead of as a silently wrong answer.
 * @module
 */
import { z } from 'zod'

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

export interface ProtoMessageOptions {
  /** Fields where `null` is a value (google.protobuf.Value), not "unset". */
  nullValued?: readonly string[]
}

/**
 * A proto request message of the given fields (keyed by JSON name); `label` names it in notes.
 */
export function protoMessage<S extends z.ZodRawShape>(label: string, shape: S, options: ProtoMessageOptions = {}) {
  const known = Object.keys(shape)
  const byProtoName = new Map(known.map((name) => [toProtoName(name), name]))
  const nullValued = new Set(options.nullValued ?? [])
  return z.preprocess((input, ctx) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input
    const out: Record<string, unknown> = {}
    const sentAs = new Map<string, string>()
    for (const [key, value] of Object.entries(input)) {
      const name = Object.hasOwn(shape, key) ? key : byProtoName.get(key)
      if (name === undefined) {
        noteIfNearMiss(label, key, known)
        continue
      }
      const earlier = sentAs.get(name)
      if (earlier !== undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: `is sent twice, as "${earlier}" and as "${key}"; send it once, as "${name}"` })
        continue
      }
      sentAs.set(name, key)
      if (value === null && !nullValued.has(name)) continue
      out[name] = value
    }
    return out
  }, z.object(shape))
}

/** ProtoJSON int32: a JSON number or a decimal string. */
export const int32 = (schema: z.ZodNumber) =>
  z.preprocess((value) => (typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value), schema.int('must be an integer'))

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
