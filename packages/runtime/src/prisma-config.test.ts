import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const prisma = createRequire(import.meta.url).resolve('prisma/build/index.js')

// Prisma 6.19's wasm schema engine has no MySQL connector: without this, it panics ("unreachable").
it('says why Prisma cannot migrate a MySQL database, instead of the wasm schema engine crashing', async () => {
  const fixture = new URL('./store/prisma/__fixture__/mysql/', import.meta.url)
  const env = { ...process.env, DATABASE_URL: 'mysql://root@127.0.0.1:3306/mysql' }
  const error = await run(process.execPath, [prisma, 'migrate', 'diff', '--from-empty', '--to-schema-datamodel', '.', '--script'], { cwd: fixture, env }).then(
    () => undefined,
    (failed: { stderr: string }) => failed,
  )
  expect(error?.stderr).toContain('Prisma 6.19 runs migrations through its wasm schema engine, which has no MySQL/MariaDB connector')
  expect(error?.stderr).toContain('Use `npx a2a migrate dev`')
}, 60_000)
