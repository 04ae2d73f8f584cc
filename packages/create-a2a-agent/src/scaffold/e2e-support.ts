/**
 * Shared by the end-to-end scaffold tests (e2e.test.ts, e2e-change.test.ts): apps are scaffolded
 * inside this repository, so Node resolves the local runtime and CLI from the root node_modules.
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect } from 'vitest'
import { captureIo } from '../cli/test-io.js'
import { runCreate } from './index.js'
import { generateEntities, initialMigration, prismaGenerate, run } from './steps.js'
import type { Database } from './templates.js'

export const repo = fileURLToPath(new URL('../../../../', import.meta.url))

/** Every prisma call needs DATABASE_URL: without it Prisma 6 tries to download engines. */
export const env = { DATABASE_URL: 'file:./dev.db' }

export const bin = (path: string) => join(repo, 'node_modules', path)

/** A fresh folder under test/ (git-ignored) for this file's apps, removed after its tests. */
export function scaffoldRoot(): string {
  const root = mkdtempSync(join(repo, 'test', `.tmp-scaffold-${process.pid}-`))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  return root
}

/** Scaffolds `root/name` with `flags`, then runs the scaffolder's steps: generate, prisma generate, first migration. */
export async function scaffoldApp(root: string, name: string, flags: string[], database: Database, stepEnv: Record<string, string>) {
  const app = join(root, name)
  const { io, stderr } = captureIo()
  expect(await runCreate([app, ...flags, '--no-install', '--no-git'], io)).toBe(0)
  expect(stderr()).toBe('')
  expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).dependencies['@a2a-agent/runtime']).toBe(
    'file:../../../packages/runtime',
  )
  await generateEntities(app, captureIo().io)
  await prismaGenerate(app, stepEnv)
  await initialMigration(app, database, stepEnv)
  const sql = readFileSync(join(app, 'prisma/migrations/0001_init/migration.sql'), 'utf8')
  expect(sql).toContain('CREATE TABLE "A2ATask"')
  expect(readFileSync(join(app, 'prisma/migrations/migration_lock.toml'), 'utf8')).toContain(`provider = "${database}"`)
  return { app, sql }
}

/** The app's own type-check and tests (`vitestArgs` narrows them), side by side; both must pass. */
export async function checkApp(app: string, stepEnv: Record<string, string>, vitestArgs: string[] = []) {
  const [typecheck, tests] = await Promise.all([
    run(process.execPath, [bin('typescript/bin/tsc'), '-p', app], { cwd: app }),
    run(process.execPath, [bin('vitest/vitest.mjs'), 'run', '--root', app, ...vitestArgs], {
      cwd: app,
      env: { ...stepEnv, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    }),
  ])
  expect(typecheck.stdout + typecheck.stderr).toBe('')
  expect(tests.code, tests.stdout + tests.stderr).toBe(0)
  return { tests: tests.stdout }
}
