import { execFile, execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const example = join(root, 'examples/invoices')
// Inside the repository, so the copy's src/entities.ts resolves '@a2a-agent/runtime' from the workspace.
const copy = join(root, 'test', `.tmp-check-${process.pid}`)
const hooks = 'src/a2a/hooks/invoices.ts'

afterAll(() => rmSync(copy, { recursive: true, force: true }))

/** The real CLI, as `npx a2a` would run it: exit code and output, never a throw. */
async function a2a(app: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return a2aIn(root, app, ...flags)
}

/** The CLI of the repository at `repo`. */
async function a2aIn(repo: string, app: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(repo, join(repo, 'packages/create-a2a-agent/bin/a2a.js'), 'generate', 'entities', '--app', app, ...flags)
}

/** `node <args>` in `cwd`: exit code and output, never a throw. */
async function run(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

/** The text of `export const <name> = {…} as const` in a generated module. */
function block(source: string, start: string, end: string): string {
  const from = source.indexOf(start)
  expect(from, `${start} in the generated file`).toBeGreaterThanOrEqual(0)
  return source.slice(from, source.indexOf(end, from) + end.length)
}

it('--check passes on the committed example and fails once its schema gains a field; a run then updates the code and leaves the hooks alone', async () => {
  // The example's own generated code and a stale copy, checked side by side (each run is a fresh process).
  cpSync(example, copy, {
    recursive: true,
    filter: (path) => !['node_modules', 'generated'].includes(basename(path)) && !/\.db(-\w+)?$/.test(path),
  })
  const schemaPath = join(copy, 'prisma/schema.prisma')
  const schema = readFileSync(schemaPath, 'utf8')
  const note = '  note       String?\n'
  expect(schema).toContain(note)
  writeFileSync(schemaPath, schema.replace(note, `${note}  /// Purchase order reference\n  poNumber   String?\n`))
  const hooksBefore = readFileSync(join(copy, hooks))

  const [committed, stale] = await Promise.all([a2a(example, '--check'), a2a(copy, '--check')])
  expect(committed.code, `examples/invoices is stale:\n${committed.stdout}${committed.stderr}`).toBe(0)
  expect(committed.stdout).toMatch(/^Up to date: \d+ generated files match the plan\./)
  expect(stale.code, stale.stdout + stale.stderr).toBe(1)
  expect(stale.stdout).toMatch(/would update\s+src\/a2a\/invoices\.gen\.ts/)
  expect(stale.stdout).not.toContain('customers.gen.ts')

  const run = await a2a(copy)
  expect(run.code, run.stdout + run.stderr).toBe(0)
  expect(run.stdout).toMatch(/updated\s+src\/a2a\/invoices\.gen\.ts/)
  expect(run.stdout).not.toContain('hooks/')

  const generated = readFileSync(join(copy, 'src/a2a/invoices.gen.ts'), 'utf8')
  const field = "poNumber: { type: ['string', 'null'], description: 'Purchase order reference' }"
  // The tool schemas: a filter on list, writable on create and update.
  for (const name of ['invoicesListSchema', 'invoicesCreateSchema', 'invoicesUpdateSchema']) {
    expect(block(generated, `export const ${name} = {`, '} as const'), name).toContain(field)
  }
  // The TypeScript input types made from those schemas, with the /// comment as their doc.
  for (const name of ['InvoicesCreateInput', 'InvoicesUpdateInput']) {
    expect(block(generated, `export interface ${name} {`, '\n}'), name).toMatch(/\/\*\*\n\s+\* Purchase order reference\n\s+\*\/\n\s+poNumber\?: string \| null\n/)
  }
  // The tool descriptions agents read.
  const listTool = block(generated, "name: 'invoices_list',", 'inputSchema')
  expect(listTool).toContain('poNumber (Purchase order reference)')

  expect(readFileSync(join(copy, hooks)).equals(hooksBefore), `${hooks} changed`).toBe(true)
  expect(readFileSync(join(example, hooks)).equals(hooksBefore)).toBe(true)

  const again = await a2a(copy)
  expect(again.code, again.stdout + again.stderr).toBe(0)
  expect(again.stdout).toMatch(/^Nothing to do: \d+ generated files are up to date\./)
}, 60_000)

it('runs the bare forms in the app folder (`a2a generate entities`, `--check`, which skip yargs) exactly as the same runs spelled with --app', async () => {
  const bare = join(root, 'test', `.tmp-bare-${process.pid}`)
  try {
    cpSync(example, bare, { recursive: true, filter: (path) => !['node_modules', 'generated'].includes(basename(path)) && !/\.db(-\w+)?$/.test(path) })
    const schemaPath = join(bare, 'prisma/schema.prisma')
    writeFileSync(schemaPath, readFileSync(schemaPath, 'utf8').replace('  note       String?\n', '  note       String?\n  poNumber   String?\n'))
    const bin = join(root, 'packages/create-a2a-agent/bin/a2a.js')
    const both = async (...flags: string[]) =>
      [await run(bare, bin, 'generate', 'entities', ...flags), await run(bare, bin, 'generate', 'entities', '--app', '.', ...flags)] as const

    const [staleBare, staleSpelled] = await both('--check')
    expect(staleBare.code, staleBare.stdout + staleBare.stderr).toBe(1)
    expect(staleBare.stdout).toMatch(/would update\s+src\/a2a\/invoices\.gen\.ts/)
    expect(staleBare).toEqual(staleSpelled)

    const written = await run(bare, bin, 'generate', 'entities')
    expect(written.code, written.stdout + written.stderr).toBe(0)
    expect(written.stdout).toMatch(/updated\s+src\/a2a\/invoices\.gen\.ts/)

    const [noopBare, noopSpelled] = await both()
    expect(noopBare.stdout).toMatch(/^Nothing to do: \d+ generated files are up to date\./)
    expect(noopBare).toEqual(noopSpelled)
    const [checkBare, checkSpelled] = await both('--check')
    expect(checkBare.code).toBe(0)
    expect(checkBare).toEqual(checkSpelled)
  } finally {
    rmSync(bare, { recursive: true, force: true })
  }
}, 60_000)

/** Every file a fresh clone of the working tree would hold: tracked and new, never ignored ones. */
function checkoutFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  return listed.split('\0').filter((path) => path !== '' && existsSync(join(root, path)))
}

/**
 * `target` as a clean checkout of this working tree after `npm ci`: its files copied, node_modules
 * linked package by package (workspace links re-pointed into the copy, as npm would make them).
 */
function cleanCheckout(target: string): void {
  for (const path of checkoutFiles()) cpSync(join(root, path), join(target, path))
  for (const folder of [
    '.',
    ...readdirSync(join(root, 'packages')).map((name) => `packages/${name}`),
    'generators',
    ...readdirSync(join(root, 'examples')).map((name) => `examples/${name}`),
  ]) {
    linkInstalled(join(root, folder, 'node_modules'), join(target, folder, 'node_modules'))
  }
}

function linkInstalled(from: string, to: string): void {
  if (!existsSync(from)) return
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name)
    if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), join(to, entry.name))
    else if (entry.name.startsWith('@')) linkInstalled(source, join(to, entry.name))
    else symlinkSync(source, join(to, entry.name))
  }
}

/** The files under `folder` (node_modules left out), path → content. */
function filesUnder(folder: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isFile() && !path.split('/').includes('node_modules')) files.set(path.slice(folder.length + 1), readFileSync(path, 'utf8'))
  }
  return files
}

it('regenerating each example in a clean checkout of this tree changes nothing, manifest included', async () => {
  const checkout = mkdtempSync(join(tmpdir(), 'a2a-clean-checkout-'))
  try {
    cleanCheckout(checkout)
    const examples = readdirSync(join(checkout, 'examples')).filter((name) => existsSync(join(checkout, 'examples', name, 'src/entities.ts')))
    expect(examples).toContain('invoices')
    for (const name of examples) {
      const app = join(checkout, 'examples', name)
      const before = filesUnder(app)
      const run = await a2aIn(checkout, app)
      expect(run.code, run.stdout + run.stderr).toBe(0)
      expect(run.stdout, `examples/${name}`).toMatch(/^Nothing to do: \d+ generated files are up to date\./)
      const after = filesUnder(app)
      expect([...after.keys()].sort(), `examples/${name}: files added or removed`).toEqual([...before.keys()].sort())
      for (const [path, content] of after) expect(content, `examples/${name}/${path} was rewritten`).toBe(before.get(path))
    }
  } finally {
    rmSync(checkout, { recursive: true, force: true })
  }
}, 120_000)
