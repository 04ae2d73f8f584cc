import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { loadDotEnv } from './dot-env.js'

const dir = mkdtempSync(join(tmpdir(), 'dot-env-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const names = ['DOT_ENV_TEST_SET', 'DOT_ENV_TEST_NEW', 'DOT_ENV_TEST_EMPTY']
afterEach(() => {
  for (const name of names) delete process.env[name]
})

describe('loadDotEnv', () => {
  it('adds what the file sets and keeps what the environment already has, even empty', () => {
    const file = join(dir, '.env')
    writeFileSync(file, '# comment\nDOT_ENV_TEST_SET=file\nDOT_ENV_TEST_NEW="from file"\nDOT_ENV_TEST_EMPTY=file\n')
    process.env.DOT_ENV_TEST_SET = 'shell'
    process.env.DOT_ENV_TEST_EMPTY = ''
    expect(loadDotEnv(file)).toBe(true)
    expect(process.env.DOT_ENV_TEST_SET).toBe('shell')
    expect(process.env.DOT_ENV_TEST_NEW).toBe('from file')
    expect(process.env.DOT_ENV_TEST_EMPTY).toBe('')
  })

  it('does nothing without the file', () => {
    expect(loadDotEnv(join(dir, 'missing.env'))).toBe(false)
  })
})
