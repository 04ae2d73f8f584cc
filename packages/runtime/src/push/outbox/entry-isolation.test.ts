import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

// pg, pg-boss and mariadb are CommonJS, so once imported (from ESM too) they sit in require's cache.
const probe = (entries: string[]) => `
  import { createRequire } from 'node:module'
  for (const entry of ${JSON.stringify(entries)}) await import(entry)
  const loaded = Object.keys(createRequire(import.meta.url).cache)
  console.log(JSON.stringify(['pg-boss', 'pg', 'mariadb'].filter((name) => loaded.some((path) => path.includes('/node_modules/' + name + '/')))))
`

async function loadedBy(entries: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@a2a-agent/source', '--import', 'tsx', '--input-type=module', '-e', probe(entries)], {
    cwd: new URL('../../../', import.meta.url),
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!)
}

it('an app that imports neither outbox entry never loads pg-boss, pg or mariadb for it; each entry loads its own drivers only, mariadb once it makes a pool', async () => {
  const entries = ['@a2a-agent/runtime', '@a2a-agent/runtime/express', '@a2a-agent/runtime/entities', '@a2a-agent/runtime/prisma']
  expect(await loadedBy(entries)).toEqual([])
  expect(await loadedBy(['@a2a-agent/runtime/push-outbox'])).toEqual(['pg-boss', 'pg'])
  // The MySQL outbox loads the connector when it makes a pool of its own (store/sql/mysql/mariadb-pool.ts), not on import.
  expect(await loadedBy(['@a2a-agent/runtime/mysql-push-outbox'])).toEqual([])
}, 60_000)
