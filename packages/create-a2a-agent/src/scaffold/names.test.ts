import { describe, expect, it } from 'vitest'
import { packageNameProblems, shellCommand, suggestPackageName } from './names.js'

describe('package names', () => {
  it('takes what npm takes for a new package, and says what is wrong with the rest', () => {
    for (const name of ['my-agent', 'agent2', 'my.agent_v2', 'a2a']) expect(packageNameProblems(name), name).toEqual([])
    expect(packageNameProblems('My Agent!')).toEqual(expect.arrayContaining(['name can only contain URL-friendly characters', 'name can no longer contain capital letters']))
    expect(packageNameProblems('.hidden')).toEqual(['name cannot start with a period'])
    expect(packageNameProblems('http')).toEqual(['http is a core module name'])
  })

  it('suggests a name npm takes', () => {
    expect(suggestPackageName('My Agent!')).toBe('my-agent')
    expect(suggestPackageName('  Über--Bot  ')).toBe('ber-bot')
    expect(suggestPackageName('_private.')).toBe('private')
    expect(suggestPackageName('http')).toBe('http-agent')
    expect(suggestPackageName('!!!')).toBe('a2a-agent')
    for (const name of ['My Agent!', 'node_modules', 'favicon.ico', 'A'.repeat(300)]) expect(packageNameProblems(suggestPackageName(name)), name).toEqual([])
  })
})

describe('shellCommand', () => {
  it('quotes only the words that need it', () => {
    expect(shellCommand('cd', '../my-agent')).toBe('cd ../my-agent')
    expect(shellCommand('cd', 'My Agent!')).toBe("cd 'My Agent!'")
    expect(shellCommand('createdb', '-U', "o'neil", 'db')).toBe(`createdb -U "o'neil" db`)
  })
})
