import { expect, it } from 'vitest'
import { GeneratorError } from '../errors.js'
import { basePlan, gen, sha, useTempApp } from './test-helpers.js'

const app = useTempApp()
const { edit, write } = app

it('leaves no temp files behind', async () => {
  await write(basePlan())
  const plan = basePlan()
  plan.files[0] = gen('src/a2a/invoice.gen.ts', 'v2\n')
  await write(plan)

  const paths = [...(await app.snapshot()).keys()]
  expect(paths.filter((path) => path.endsWith('.tmp'))).toEqual([])
  expect(paths.sort()).toEqual([
    '.a2a/',
    '.a2a/manifest.json',
    'src/',
    'src/a2a/',
    'src/a2a/entities.gen.ts',
    'src/a2a/hooks/',
    'src/a2a/hooks/invoice.ts',
    'src/a2a/invoice.gen.ts',
  ])
})

it('refuses plan paths that leave the app root', async () => {
  for (const path of ['../outside.ts', '/etc/passwd', 'src/../../x.ts', 'src\\x.ts', 'src//x.ts']) {
    await expect(write({ files: [gen(path, 'x')] })).rejects.toThrow(GeneratorError)
  }
  expect((await app.snapshot()).size).toBe(0)
})

it('refuses a manifest that points outside the app root, before deleting anything', async () => {
  await write(basePlan())
  await edit('.a2a/manifest.json', JSON.stringify({ files: { '../victim.txt': sha('x') } }))

  await expect(write(basePlan())).rejects.toThrow(/\.a2a\/manifest\.json lists an unsafe path "\.\.\/victim\.txt"/)
})

it('names the manifest and the fix when it is not valid JSON', async () => {
  await write(basePlan())
  await edit('.a2a/manifest.json', '{ nope')

  const error = await write(basePlan()).catch((e: unknown) => e)

  expect(error).toBeInstanceOf(GeneratorError)
  expect((error as GeneratorError).file).toBe('.a2a/manifest.json')
  expect((error as GeneratorError).message).toMatch(/not a valid a2a manifest \(not JSON\)\. Restore it from version control, or delete it/)
})

it('refuses a plan that lists a path twice or claims the manifest', async () => {
  await expect(write({ files: [gen('a.ts', '1'), gen('a.ts', '2')] })).rejects.toThrow('The plan lists a.ts twice.')
  await expect(write({ files: [gen('.a2a/manifest.json', '{}')] })).rejects.toThrow(/writer owns it/)
})
