import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { removeEmptyParents, writeFileAtomic } from './atomic.js'
import { useTempApp } from './test-helpers.js'

const app = useTempApp()

it('creates parent folders and replaces an existing file whole', async () => {
  const file = join(app.root, 'a/b/c.ts')
  await writeFileAtomic(file, 'one\n')
  await writeFileAtomic(file, 'two\n')
  expect(await readFile(file, 'utf8')).toBe('two\n')
  expect(await readdir(join(app.root, 'a/b'))).toEqual(['c.ts'])
})

it('removes its temp file when the rename fails', async () => {
  await mkdir(join(app.root, 'taken/inner'), { recursive: true }) // a non-empty folder cannot be renamed over
  await expect(writeFileAtomic(join(app.root, 'taken'), 'x')).rejects.toThrow()
  expect(await readdir(app.root)).toEqual(['taken'])
})

it('removes empty parents up to, not including, the root', async () => {
  await mkdir(join(app.root, 'a/b/c'), { recursive: true })
  await writeFileAtomic(join(app.root, 'a/keep.txt'), 'k')
  await removeEmptyParents(app.root, join(app.root, 'a/b/c/gone.ts'))
  expect(await readdir(app.root)).toEqual(['a'])
  expect(await readdir(join(app.root, 'a'))).toEqual(['keep.txt'])

  await mkdir(join(app.root, 'x/y'), { recursive: true })
  await removeEmptyParents(app.root, join(app.root, 'x/y/gone.ts'))
  expect(await readdir(app.root)).toEqual(['a'])
})
