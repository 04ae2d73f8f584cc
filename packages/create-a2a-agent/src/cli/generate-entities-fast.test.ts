import { cpSync, rmSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type PlanInput, plan } from '@a2a-agent/generators'
import { afterAll, beforeEach, expect, it, vi } from 'vitest'
import { type GenerateEntitiesOptions, runGenerateEntities } from './generate-entities.js'
import { captureIo } from './test-io.js'

// The no-op shortcut against a real app (a copy of examples/invoices): taken only when nothing
// that feeds the plan changed and every file a2a tracks is intact. Inside the repository, so the
// copy's src/entities.ts resolves '@a2a-agent/runtime' from the workspace.
const root = fileURLToPath(new URL('../../../../', import.meta.url))
const example = join(root, 'examples/invoices')
const base = join(root, 'test', `.tmp-check-fast-${process.pid}`)
let app: string
let count = 0

afterAll(() => rmSync(base, { recursive: true, force: true }))

beforeEach(async () => {
  app = join(base, String(count++))
  cpSync(example, app, {
    recursive: true,
    filter: (path) => !['node_modules', 'generated'].includes(basename(path)) && !/\.db(-\w+)?$/.test(path),
  })
  // The entities file imports a module of the app's own, whose edits must count too.
  await writeFile(join(app, 'src/labels.ts'), `export const CUSTOMERS = "The caller's customers"\n`)
  const entities = await readFile(join(app, 'src/entities.ts'), 'utf8')
  await writeFile(join(app, 'src/entities.ts'), `import { CUSTOMERS } from './labels.js'\n${entities.replace(`description: "The caller's customers"`, 'description: CUSTOMERS')}`)
  const first = await run()
  expect(first.code, first.stderr).toBe(0)
  expect(first.planner).toHaveBeenCalledOnce()
})

async function run(options: Omit<GenerateEntitiesOptions, 'cwd' | 'app'> = {}) {
  const { io, stdout, stderr } = captureIo()
  const planner = vi.fn((input: PlanInput) => plan(input))
  const code = await runGenerateEntities({ cwd: app, ...options }, io, planner)
  return { code, stdout: stdout(), stderr: stderr(), planner }
}

const edit = async (path: string, change: (text: string) => string) => writeFile(join(app, path), change(await readFile(join(app, path), 'utf8')))

it('skips planning on an unchanged app and prints what a full no-op run prints, in every mode', async () => {
  for (const [options, line] of [
    [{}, 'Nothing to do: 9 generated files are up to date.\n'],
    [{ check: true }, 'Up to date: 9 generated files match the plan.\n'],
    [{ dryRun: true }, 'Nothing to do: 9 generated files are up to date.\n'],
    [{ diff: true }, 'Nothing to do: 9 generated files are up to date.\n'],
  ] as const) {
    const fast = await run(options)
    expect(fast).toMatchObject({ code: 0, stdout: line, stderr: '' })
    expect(fast.planner).not.toHaveBeenCalled()
  }
  // --force always plans, and agrees.
  const forced = await run({ force: true })
  expect(forced.planner).toHaveBeenCalledOnce()
  expect(forced.stdout).toBe('Nothing to do: 9 generated files are up to date.\n')
})

it('plans after a schema edit, and updates the code', async () => {
  await edit('prisma/schema.prisma', (text) => text.replace('  note       String?\n', '  note       String?\n  poNumber   String?\n'))
  const check = await run({ check: true })
  expect(check.planner).toHaveBeenCalledOnce()
  expect(check.code).toBe(1)
  const { planner, stdout } = await run()
  expect(planner).toHaveBeenCalledOnce()
  expect(stdout).toMatch(/updated\s+src\/a2a\/invoices\.gen\.ts/)
  expect((await run()).planner).not.toHaveBeenCalled()
})

it('plans after an entities file edit', async () => {
  await edit('src/entities.ts', (text) => text.replace(`description: "The caller's invoices"`, `description: 'Invoices of the caller'`))
  const { planner, stdout, stderr } = await run()
  expect(planner).toHaveBeenCalledOnce()
  expect(stderr).toBe('')
  expect(stdout).toMatch(/updated\s+src\/a2a\/invoices\.gen\.ts/)
})

it('plans after an edit to a module the entities file imports, even one that changes no output', async () => {
  await edit('src/labels.ts', (text) => `// reworded later\n${text}`)
  const changed = await run()
  expect(changed.planner).toHaveBeenCalledOnce()
  expect(changed.stdout).toBe('Nothing to do: 9 generated files are up to date.\n')
  // That run recorded the new fingerprint, so the next one is quick again.
  expect((await run()).planner).not.toHaveBeenCalled()

  await edit('src/labels.ts', () => `export const CUSTOMERS = 'Customers'\n`)
  const reworded = await run()
  expect(reworded.planner).toHaveBeenCalledOnce()
  expect(reworded.stdout).toMatch(/updated\s+src\/a2a\/customers\.gen\.ts/)
})

it('plans when a generated file was edited by hand, and the full run still refuses it', async () => {
  await edit('src/a2a/invoices.gen.ts', (text) => `${text}// my tweak\n`)
  const { code, planner, stderr } = await run()
  expect(planner).toHaveBeenCalledOnce()
  expect(code).toBe(1)
  expect(stderr).toContain('src/a2a/invoices.gen.ts  edited since a2a generated it')
  expect(await readFile(join(app, 'src/a2a/invoices.gen.ts'), 'utf8')).toMatch(/\/\/ my tweak\n$/)
})

it('plans when a generated file is gone, and when a hooks file was deleted, recreating each', async () => {
  await rm(join(app, 'src/a2a/entities.gen.ts'))
  const rebuilt = await run()
  expect(rebuilt.planner).toHaveBeenCalledOnce()
  expect(rebuilt.stdout).toMatch(/created\s+src\/a2a\/entities\.gen\.ts/)

  await rm(join(app, 'src/a2a/hooks/invoices.ts'))
  const { planner, stdout } = await run()
  expect(planner).toHaveBeenCalledOnce()
  expect(stdout).toMatch(/created\s+src\/a2a\/hooks\/invoices\.ts \(yours: never overwritten\)/)
  expect(await readFile(join(app, 'src/a2a/hooks/invoices.ts'), 'utf8')).toContain('beforeCreate')
})

it('plans with a manifest that has no fingerprint, records one without reporting a change, and is quick after', async () => {
  const manifest = JSON.parse(await readFile(join(app, '.a2a/manifest.json'), 'utf8')) as { files: object }
  await writeFile(join(app, '.a2a/manifest.json'), `${JSON.stringify({ files: manifest.files }, null, 2)}\n`)
  const check = await run({ check: true })
  expect(check).toMatchObject({ code: 0, stdout: 'Up to date: 9 generated files match the plan.\n' })
  expect(check.planner).toHaveBeenCalledOnce()
  const upgrade = await run()
  expect(upgrade.planner).toHaveBeenCalledOnce()
  expect(upgrade.stdout).toBe('Nothing to do: 9 generated files are up to date.\n')
  expect(JSON.parse(await readFile(join(app, '.a2a/manifest.json'), 'utf8'))).toMatchObject({
    inputs: expect.stringMatching(/^[0-9a-f]{64}$/),
    userFiles: ['src/a2a/hooks/customers.ts', 'src/a2a/hooks/invoices.ts', 'test/support.ts'],
  })
  expect((await run()).planner).not.toHaveBeenCalled()
})

it('is quick right after a first run that wrote prisma/a2a.prisma into the schema folder it read', async () => {
  for (const path of ['.a2a', 'src/a2a', 'test', 'prisma/a2a.prisma']) await rm(join(app, path), { recursive: true, force: true })
  const cold = await run()
  expect(cold.planner).toHaveBeenCalledOnce()
  expect(cold.stdout).toMatch(/created\s+prisma\/a2a\.prisma/)
  const next = await run()
  expect(next.planner).not.toHaveBeenCalled()
  expect(next.stdout).toBe('Nothing to do: 9 generated files are up to date.\n')
  // An edit to the generated schema file is a hand edit like any other.
  await edit('prisma/a2a.prisma', (text) => `${text}// mine\n`)
  const edited = await run()
  expect(edited.planner).toHaveBeenCalledOnce()
  expect(edited.code).toBe(1)
})
