import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { GeneratorError } from '../errors.js'
import { exitCodeFor } from './apply-plan.js'
import { formatReport } from './format-report.js'
import { ENTITIES, HOOKS, INVOICE, basePlan, gen, sha, tick, useTempApp, user } from './test-helpers.js'

const app = useTempApp()
const { read, exists, edit, write } = app

it('writes every file and a sorted, timestamp-free manifest on the first run', async () => {
  const report = await write(basePlan())

  expect(report.errors).toEqual([])
  expect(report.wrote).toBe(true)
  expect(report.manifest).toBe('created')
  expect(report.files.map((f) => [f.path, f.action])).toEqual([
    ['src/a2a/entities.gen.ts', 'created'],
    ['src/a2a/hooks/invoice.ts', 'created'],
    ['src/a2a/invoice.gen.ts', 'created'],
  ])
  expect(await read('src/a2a/invoice.gen.ts')).toBe(INVOICE)
  expect(await read('src/a2a/hooks/invoice.ts')).toBe(HOOKS)
  // Generated files are tracked, and user files as a2a wrote them; keys sorted whatever the plan order.
  expect(await read('.a2a/manifest.json')).toBe(
    `{\n  "files": {\n    "src/a2a/entities.gen.ts": "${sha(ENTITIES)}",\n    "src/a2a/invoice.gen.ts": "${sha(INVOICE)}"\n  },\n  "userHashes": {\n    "src/a2a/hooks/invoice.ts": "${sha(HOOKS)}"\n  }\n}\n`,
  )
  expect(formatReport(report)).toEqual([
    'created  src/a2a/entities.gen.ts',
    'created  src/a2a/hooks/invoice.ts (yours: never overwritten)',
    'created  src/a2a/invoice.gen.ts',
    'created  .a2a/manifest.json',
    'Done: 3 created.',
  ])
})

it('writes nothing on a second run, not even the manifest, and says so', async () => {
  await write(basePlan())
  const before = await app.snapshot()
  await tick()

  const report = await write(basePlan())

  expect(report.wrote).toBe(false)
  expect(report.manifest).toBe('unchanged')
  expect(report.files.map((f) => f.action)).toEqual(['unchanged', 'kept', 'unchanged'])
  expect(await app.snapshot()).toEqual(before) // same bytes, same mtimes, no temp files
  expect(formatReport(report)).toEqual(['Nothing to do: 2 generated files are up to date.'])
  expect(exitCodeFor(report)).toBe(0)
})

it('rewrites only the generated file whose content changed', async () => {
  await write(basePlan())
  const before = await app.snapshot()
  await tick()
  const plan = basePlan()
  plan.files[0] = gen('src/a2a/invoice.gen.ts', `${INVOICE}export const more = 2\n`)

  const report = await write(plan)

  expect(report.files.find((f) => f.path === 'src/a2a/invoice.gen.ts')?.action).toBe('updated')
  expect(await read('src/a2a/invoice.gen.ts')).toBe(`${INVOICE}export const more = 2\n`)
  expect(JSON.parse(await read('.a2a/manifest.json')).files['src/a2a/invoice.gen.ts']).toBe(sha(`${INVOICE}export const more = 2\n`))
  const after = await app.snapshot()
  expect(after.get('src/a2a/entities.gen.ts')).toEqual(before.get('src/a2a/entities.gen.ts'))
  expect(formatReport(report)).toEqual(['updated  src/a2a/invoice.gen.ts', 'updated  .a2a/manifest.json', 'Done: 1 updated, 1 unchanged, 1 kept.'])
})

it('refuses a hand-edited generated file and writes nothing at all in that run', async () => {
  await write(basePlan())
  await edit('src/a2a/invoice.gen.ts', `${INVOICE}// my tweak\n`)
  const before = await app.snapshot()
  const plan = basePlan()
  plan.files[1] = gen('src/a2a/entities.gen.ts', `${ENTITIES}// v2\n`) // a change that must wait
  plan.files.push(gen('src/a2a/customer.gen.ts', 'new\n'))

  const report = await write(plan)

  expect(report.wrote).toBe(false)
  expect(await app.snapshot()).toEqual(before)
  expect(report.files.find((f) => f.path === 'src/a2a/invoice.gen.ts')).toMatchObject({
    action: 'refused',
    handEdit: 'edited',
  })
  expect(report.errors).toHaveLength(1)
  const [error] = report.errors
  expect(error).toBeInstanceOf(GeneratorError)
  expect(error?.message).toBe(
    [
      'Refusing to overwrite a generated file changed by hand:',
      '  src/a2a/invoice.gen.ts  edited since a2a generated it',
      "Nothing was written. Move your change into the entity's hooks file (src/a2a/hooks/<entity>.ts), which a2a never overwrites, then rerun; or rerun with --force to replace it with the generated version.",
    ].join('\n'),
  )
  expect(formatReport(report)).toEqual([])
  expect(exitCodeFor(report)).toBe(1)
})

it('names every hand-edited file in one refusal', async () => {
  await write(basePlan())
  await edit('src/a2a/invoice.gen.ts', 'mine\n')
  await edit('src/a2a/entities.gen.ts', 'mine too\n')

  const [error] = (await write(basePlan())).errors

  expect(error?.message).toContain('2 generated files changed by hand:')
  expect(error?.message).toContain('  src/a2a/entities.gen.ts  edited since a2a generated it')
  expect(error?.message).toContain('  src/a2a/invoice.gen.ts   edited since a2a generated it')
  expect(error?.message).toContain('--force to replace them')
})

it('overwrites a hand-edited generated file with --force', async () => {
  await write(basePlan())
  await edit('src/a2a/invoice.gen.ts', `${INVOICE}// my tweak\n`)

  const report = await write(basePlan(), true)

  expect(report.errors).toEqual([])
  expect(await read('src/a2a/invoice.gen.ts')).toBe(INVOICE)
  expect(report.files.find((f) => f.path === 'src/a2a/invoice.gen.ts')).toMatchObject({
    action: 'updated',
    handEdit: 'edited',
  })
  expect(formatReport(report)).toContain('updated  src/a2a/invoice.gen.ts (hand edit replaced: --force)')
  expect((await write(basePlan())).wrote).toBe(false) // and the manifest agrees again
})

it('treats a generated file that exists without a manifest entry as hand-made, unless identical', async () => {
  await mkdir(join(app.root, 'src/a2a'), { recursive: true })
  await edit('src/a2a/invoice.gen.ts', INVOICE) // identical: adopted
  await edit('src/a2a/entities.gen.ts', 'written by someone else\n')

  const refused = await write(basePlan())

  expect(refused.files.map((f) => [f.path, f.action, f.handEdit])).toEqual([
    ['src/a2a/entities.gen.ts', 'refused', 'untracked'],
    ['src/a2a/hooks/invoice.ts', 'created', undefined],
    ['src/a2a/invoice.gen.ts', 'unchanged', undefined],
  ])
  expect(refused.errors[0]?.message).toContain('src/a2a/entities.gen.ts  exists, but a2a did not write it (not in .a2a/manifest.json)')
  expect(await exists('.a2a/manifest.json')).toBe(false)
  expect(await exists('src/a2a/hooks/invoice.ts')).toBe(false)

  const forced = await write(basePlan(), true)
  expect(forced.errors).toEqual([])
  expect(await read('src/a2a/entities.gen.ts')).toBe(ENTITIES)
  expect(Object.keys(JSON.parse(await read('.a2a/manifest.json')).files)).toEqual(['src/a2a/entities.gen.ts', 'src/a2a/invoice.gen.ts'])
})

it('creates a user-owned file once and then keeps it byte for byte', async () => {
  await write(basePlan())
  const mine = 'export const hooks = {\r\n  beforeCreate() {},\r\n}\u00a0\n' // CRLF and odd bytes on purpose
  await edit('src/a2a/hooks/invoice.ts', mine)
  const before = await app.snapshot()
  await tick()
  const plan = basePlan()
  plan.files[2] = user('src/a2a/hooks/invoice.ts', 'export const hooks = { v2: true }\n')

  const report = await write(plan)

  expect(report.files.find((f) => f.path === 'src/a2a/hooks/invoice.ts')?.action).toBe('kept')
  expect(await readFile(join(app.root, 'src/a2a/hooks/invoice.ts'))).toEqual(Buffer.from(mine))
  expect(await app.snapshot()).toEqual(before)
  // a2a wrote a different version than it would now: the run says so, and changes nothing.
  expect(formatReport(report)).toEqual([
    'Nothing to do: 2 generated files are up to date.',
    'Change src/a2a/hooks/invoice.ts (yours, so a2a left it): a2a now writes it differently than when it wrote it (its inputs changed, e.g. the owner model), and your edits keep it as it was; to take the new version, move it aside, rerun, and carry your edits over.',
  ])
})

it('deletes a file the plan no longer has, and the folders it leaves empty', async () => {
  const plan = basePlan()
  plan.files.push(gen('test/entities/customer.gen.test.ts', 'test\n'))
  plan.files.push(gen('src/a2a/customer.gen.ts', 'customer\n'))
  await write(plan)
  await edit('test/keep.txt', 'not generated\n')

  const report = await write(basePlan())

  expect(report.files.filter((f) => f.action === 'deleted').map((f) => f.path)).toEqual(['src/a2a/customer.gen.ts', 'test/entities/customer.gen.test.ts'])
  expect(await exists('src/a2a/customer.gen.ts')).toBe(false)
  expect(await exists('test/entities')).toBe(false) // emptied by the deletion
  expect(await exists('test/keep.txt')).toBe(true) // a folder with other files stays
  expect(await exists('src/a2a/invoice.gen.ts')).toBe(true)
  expect(Object.keys(JSON.parse(await read('.a2a/manifest.json')).files)).toEqual(['src/a2a/entities.gen.ts', 'src/a2a/invoice.gen.ts'])
  expect(formatReport(report)).toEqual([
    'updated  .a2a/manifest.json',
    'deleted  src/a2a/customer.gen.ts (no longer generated)',
    'deleted  test/entities/customer.gen.test.ts (no longer generated)',
    'Done: 2 deleted, 2 unchanged, 1 kept.',
  ])
})

it('refuses to delete a removed file that was edited by hand, and deletes it with --force', async () => {
  const plan = basePlan()
  plan.files.push(gen('src/a2a/customer.gen.ts', 'customer\n'))
  await write(plan)
  await edit('src/a2a/customer.gen.ts', 'customer, improved\n')
  const before = await app.snapshot()

  const refused = await write(basePlan())

  expect(await app.snapshot()).toEqual(before)
  expect(refused.files.find((f) => f.path === 'src/a2a/customer.gen.ts')).toMatchObject({
    action: 'refused',
    orphan: true,
  })
  expect(refused.errors[0]?.message).toContain('src/a2a/customer.gen.ts  edited since a2a generated it, and no longer generated (delete it yourself, or --force deletes it)')

  const forced = await write(basePlan(), true)
  expect(forced.files.find((f) => f.path === 'src/a2a/customer.gen.ts')?.action).toBe('deleted')
  expect(await exists('src/a2a/customer.gen.ts')).toBe(false)
})

it('rebuilds a generated file deleted by hand and forgets a removed file already gone', async () => {
  const plan = basePlan()
  plan.files.push(gen('src/a2a/customer.gen.ts', 'customer\n'))
  await write(plan)
  await rm(join(app.root, 'src/a2a/customer.gen.ts'))
  await rm(join(app.root, 'src/a2a/invoice.gen.ts'))

  const report = await write(basePlan())

  expect(report.files.map((f) => [f.path, f.action])).toEqual([
    ['src/a2a/entities.gen.ts', 'unchanged'],
    ['src/a2a/hooks/invoice.ts', 'kept'],
    ['src/a2a/invoice.gen.ts', 'created'],
  ])
  expect(Object.keys(JSON.parse(await read('.a2a/manifest.json')).files)).not.toContain('src/a2a/customer.gen.ts')
})
