import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { devKeyResolver, devKeysFromEnv, parseDevKeys, withDevKeys } from './dev-keys.js'

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

  it('are refused under NODE_ENV=production', () => {
    expect(() => devKeyResolver('alice:token-a', { NODE_ENV: 'production' })).toThrow('Development keys are refused when NODE_ENV=production')
  })
})

describe('development keys from A2A_DEV_KEYS', () => {
  const apiKey = (request: IncomingMessage) => (request.headers.authorization === 'Bearer a2a_key' ? { owner: 'carol' } : null)

  it("are tried before the app's own resolver when set, and are absent when unset or empty", async () => {
    const resolve = withDevKeys(apiKey, { A2A_DEV_KEYS: 'alice:token-a' })
    expect(await resolve(request('Bearer token-a'))).toMatchObject({ owner: 'alice' })
    expect(await resolve(request('Bearer a2a_key'))).toEqual({ owner: 'carol' })
    expect(await resolve(request('Bearer key-alice'))).toBeNull()
    expect(withDevKeys(apiKey, {})).toBe(apiKey)
    expect(withDevKeys(apiKey, { A2A_DEV_KEYS: ' ' })).toBe(apiKey)
    expect(devKeysFromEnv({})).toBeUndefined()
  })

  it('stop the app from starting under NODE_ENV=production, naming the variable', () => {
    const env = { A2A_DEV_KEYS: 'alice:token-a', NODE_ENV: 'production' }
    expect(() => withDevKeys(apiKey, env)).toThrow(/^A2A_DEV_KEYS is set while NODE_ENV=production: .*Unset A2A_DEV_KEYS/)
    expect(withDevKeys(apiKey, { NODE_ENV: 'production' })).toBe(apiKey)
  })
})
