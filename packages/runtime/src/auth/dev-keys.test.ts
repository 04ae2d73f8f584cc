import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { devKeyResolver, parseDevKeys } from './dev-keys.js'

const request = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage

describe('development keys', () => {
  it('maps bearer tokens to owners', () => {
    const resolve = devKeyResolver(' alice:key-alice , bob:key-bob ')
    expect(resolve(request('Bearer key-alice'))).toMatchObject({ owner: 'alice', credential: expect.stringMatching(/^dev:[0-9a-f]{16}$/) })
    expect(resolve(request('bearer key-bob'))).toMatchObject({ owner: 'bob' })
    expect(resolve(request('Bearer key-carol'))).toBeNull()
    expect(resolve(request('Basic a2V5LWFsaWNl'))).toBeNull()
    expect(resolve(request())).toBeNull()
  })

  it.each([
    ['', 'No development keys'],
    ['alice', '"alice" is not owner:token'],
    [':token', 'is not owner:token'],
    ['alice:', 'is not owner:token'],
    ['alice:same,bob:same', 'reuses another owner'],
  ])('refuses %j naming the fix', (spec, message) => {
    expect(() => parseDevKeys(spec)).toThrow(message)
  })
})
