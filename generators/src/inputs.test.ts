import { cpSync } from 'node:fs'
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type GeneratorFiles, fingerprintInputs } from './inputs.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const example = { appRoot: join(root, 'examples/invoices') }
let temp: string
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'a2a-inputs-'))
})
afterEach(() => rm(temp, { recursive: true, force: true }))

/** A copy of the generator's own files, to edit without touching the repository's. */
function copyGenerator(): GeneratorFiles {
  const files = { src: join(temp, 'generators/src'), templates: join(temp, 'templates/entity'), packageJson: join(temp, 'generators/package.json') }
  cpSync(join(root, 'generators/src'), files.src, { recursive: true })
  cpSync(join(root, 'templates/entity'), files.templates, { recursive: true })
  cpSync(join(root, 'generators/package.json'), files.packageJson)
  return files
}

const append = async (path: string, text: string) => writeFile(path, `${await readFile(path, 'utf8')}${text}`)

it('does not depend on where the generator lives, but on every template and non-test source of it', async () => {
  const own = await fingerprintInputs(example)
  expect(own).toMatch(/^[0-9a-f]{64}$/)
  const copy = copyGenerator()
  expect(await fingerprintInputs(example, copy)).toBe(own)

  await append(join(copy.src, 'plan/plan.test.ts'), '// a test is not the generator\n')
  await mkdir(join(copy.src, 'plan/__fixture__/more'), { recursive: true })
  await writeFile(join(copy.src, 'plan/__fixture__/more/extra.ts'), 'export {}\n')
  expect(await fingerprintInputs(example, copy)).toBe(own)

  await append(join(copy.templates, 'entity.gen.ts.hbs'), '\n')
  const afterTemplate = await fingerprintInputs(example, copy)
  expect(afterTemplate).not.toBe(own)
  await append(join(copy.src, 'plan/schemas.ts'), '\n')
  expect(await fingerprintInputs(example, copy)).not.toBe(afterTemplate)
})

it('depends on the plan options', async () => {
  const own = await fingerprintInputs(example)
  expect(await fingerprintInputs({ ...example, outDir: 'src/tools' })).not.toBe(own)
  expect(await fingerprintInputs({ ...example, schemaPath: 'prisma' })).toBe(own) // the default, spelled out
})

it('is unknown when an import of the entities file cannot be resolved', async () => {
  await mkdir(join(temp, 'src'), { recursive: true })
  await mkdir(join(temp, 'prisma'))
  await writeFile(join(temp, 'prisma/schema.prisma'), 'model A {\n  id Int @id\n}\n')
  const entities = join(temp, 'src/entities.ts')
  await writeFile(join(temp, 'src/names.ts'), 'export const names = 1\n')
  await writeFile(entities, "import { names } from './names.js'\nexport default { names }\n")
  const known = await fingerprintInputs({ appRoot: temp })
  expect(known).toMatch(/^[0-9a-f]{64}$/)
  await writeFile(join(temp, 'src/names.ts'), 'export const names = 2\n')
  expect(await fingerprintInputs({ appRoot: temp })).not.toBe(known)

  await writeFile(entities, "import { names } from './missing.js'\nexport default { names }\n")
  expect(await fingerprintInputs({ appRoot: temp })).toBeUndefined()
  await writeFile(entities, "import { names } from 'no-such-package-anywhere'\nexport default { names }\n")
  expect(await fingerprintInputs({ appRoot: temp })).toBeUndefined()
  await rm(entities)
  expect(await fingerprintInputs({ appRoot: temp })).toBeUndefined()
})

it('follows a linked package to the source it exports under the source condition, not its build', async () => {
  const pkg = join(temp, 'pkg')
  await mkdir(join(pkg, 'src'), { recursive: true })
  await mkdir(join(pkg, 'dist'))
  const exports = { '.': { '@a2a-agent/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } }
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'linked', type: 'module', exports }))
  await writeFile(join(pkg, 'src/index.ts'), 'export const x = 1\n')
  await writeFile(join(pkg, 'dist/index.js'), 'export const x = 1\n')
  const app = join(temp, 'app')
  await mkdir(join(app, 'node_modules'), { recursive: true })
  await mkdir(join(app, 'src'))
  await mkdir(join(app, 'prisma'))
  await symlink(pkg, join(app, 'node_modules/linked'))
  await writeFile(join(app, 'prisma/schema.prisma'), 'model A {\n  id Int @id\n}\n')
  await writeFile(join(app, 'src/entities.ts'), "import { x } from 'linked'\nexport default { x }\n")

  const known = await fingerprintInputs({ appRoot: app })
  expect(known).toMatch(/^[0-9a-f]{64}$/)
  await writeFile(join(pkg, 'dist/index.js'), 'export const x = 2\n')
  await writeFile(join(pkg, 'dist/index.d.ts'), 'export declare const x: number\n')
  expect(await fingerprintInputs({ appRoot: app })).toBe(known)
  await append(join(pkg, 'src/index.ts'), '// edited\n')
  expect(await fingerprintInputs({ appRoot: app })).not.toBe(known)
})
