/**
 * Keyset cursors over (status time, id), newest first: stable while new tasks arrive.
 * @module
 */
import { InvalidCursorError } from './store.js'

export interface Keyset {
  time: number
  id: string
}

export const encodeCursor = (key: Keyset): string => Buffer.from(JSON.stringify([key.time, key.id])).toString('base64url')

export function decodeCursor(cursor: string): Keyset {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(value) && value.length === 2 && Number.isFinite(value[0]) && typeof value[1] === 'string') {
      const key = { time: value[0] as number, id: value[1] }
      // Base64 decoding skips stray characters, so only the exact encoding this module emits counts.
      if (encodeCursor(key) === cursor) return key
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidCursorError(cursor)
}

/** Newest first, ties by id descending. */
export const compareNewestFirst = (a: Keyset, b: Keyset): number => b.time - a.time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** True when `key` sorts strictly after the cursor position. */
export const isAfter = (key: Keyset, cursor: Keyset): boolean => compareNewestFirst(cursor, key) < 0
