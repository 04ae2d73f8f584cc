import { describe, expect, it } from 'vitest'
import { ToolError } from './entity-tool.js'
import { wholeKey } from './whole-key.js'

interface Changes {
  title?: string
  binZone?: string | null
  binShelf?: number | null
  binRow?: number | null
}

const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError)
    return (error as Error).message
  }
  throw new Error('expected a refusal')
}

describe('wholeKey', () => {
  it('answers the key when every field of it is sent', () => {
    const changes: Changes = { title: 'a', binZone: 'A', binShelf: 0 }
    const key = wholeKey(changes, ['binZone', 'binShelf'], 'bin')
    expect(key).toEqual(changes)
    // Narrowed: neither undefined nor null.
    const zone: string | undefined = key?.binZone
    expect(zone).toBe('A')
  })

  it('answers nothing when none of it is sent, or when each is null', () => {
    expect(wholeKey<Changes, 'binZone' | 'binShelf'>({ title: 'a' }, ['binZone', 'binShelf'], 'bin')).toBeUndefined()
    expect(wholeKey<Changes, 'binZone' | 'binShelf'>({ binZone: null, binShelf: null }, ['binZone', 'binShelf'], 'bin')).toBeUndefined()
  })

  it('refuses part of the key, naming what is missing and what to send', () => {
    const fields = ['binZone', 'binShelf', 'binRow'] as const
    expect(refusal(() => wholeKey<Changes, (typeof fields)[number]>({ binZone: 'A', binShelf: 1 }, fields, 'bin'))).toBe(
      'binRow is missing: binZone, binShelf and binRow name one bin together, so send all of them or none',
    )
    expect(refusal(() => wholeKey<Changes, (typeof fields)[number]>({ binShelf: 1 }, fields, 'bin'))).toBe(
      'binZone and binRow are missing: binZone, binShelf and binRow name one bin together, so send all of them or none',
    )
  })

  it('refuses a key that is null in part', () => {
    expect(refusal(() => wholeKey<Changes, 'binZone' | 'binShelf'>({ binZone: 'A', binShelf: null }, ['binZone', 'binShelf'], 'bin'))).toBe(
      'binShelf is null while the others are not: binZone and binShelf name one bin together, so set all of them or none to null',
    )
  })
})
