import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'
import { unpackWithDependencies } from './unpacked.js'

// The package as npm would publish it: `npm pack` (its prepack builds), then the tarball unpacked
// where only its dependencies are installed, and run.
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url))
const REPO = join(PACKAGE, '../..')
const FIXTURE = join(REPO, 'generators/src/plan/__fixture__')
const temp = mkdtempSync(join(tmpdir(), 'a2a-pack-'))
// Inside the repository, so the app's src/entities.ts resolves '@a2a-agent/runtime' from the workspace.
const app = join(REPO, 'test', `.tmp-check-pack-${process.pid}`)
afterAll(() => {
  rmSync(temp, { recursive: true, force: true })
  rmSync(app, { recursive: true, force: true })
})

const exec = promisify(execFile)
const filesUnder = (root: string) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()

let tarball = ''

it('packs the bins, the build and every template, and no sources or tests', async () => {
  const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', temp], { cwd: PACKAGE })
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[]
  tarball = join(temp, packed!.filename)
  const paths = packed!.files.map((file) => file.path)
  const { entries } = JSON.parse(readFileSync(join(PACKAGE, 'dist/build.json'), 'utf8')) as { entries: Record<string, string> }
  expect(Object.keys(entries).sort()).toEqual(['a2a', 'create', 'index'])
  expect(paths).toEqual(
    expect.arrayContaining([
      'package.json',
      'bin/a2a.js',
      'bin/create-a2a-agent.js',
      'bin/launch.js',
      'dist/build.json',
      ...Object.values(entries).map((file) => `dist/${file}`),
      ...filesUnder(join(REPO, 'templates')).map((path) => `templates/${path}`),
    ]),
  )
  // TypeScript ships only as templates (and the launcher's types).
  const sources = paths.filter((path) => !path.startsWith('templates/') && (path.startsWith('src/') || (path.endsWith('.ts') && !path.endsWith('.d.ts'))))
  expect(sources).toEqual([])
}, 60_000)

it('runs from the unpacked tarball with only its dependencies: the fixture app comes out as the goldens', async () => {
  expect(tarball).not.toBe('')
  const bin = join(await unpackWithDependencies(tarball, temp), 'bin/a2a.js')
  expect((await exec(process.execPath, [bin, '--version'])).stdout).toBe(`${JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version}\n`)

  for (const path of ['prisma/schema.prisma', 'src/app.ts', 'src/db.ts', 'src/entities.ts']) cpSync(join(FIXTURE, path), join(app, path))
  const { stdout } = await exec(process.execPath, [bin, 'generate', 'entities', '--app', app])
  expect(stdout).toMatch(/^Done: \d+ created\.$/m)
  for (const path of filesUnder(FIXTURE)) expect(readFileSync(join(app, path), 'utf8'), path).toBe(readFileSync(join(FIXTURE, path), 'utf8'))
}, 60_000)
