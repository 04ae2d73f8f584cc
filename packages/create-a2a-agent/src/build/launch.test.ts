import { execFile } from 'node:child_process'
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, beforeEach, expect, it } from 'vitest'

// bin/launch.js in a package of its own making: entry `x` is src/x.ts, and dist/ holds a "build"
// of it that says so. Each case runs the bin in a real process.
const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const LAUNCH = fileURLToPath(new URL('../../bin/launch.js', import.meta.url))
let pkg: string

beforeEach(async () => {
  pkg = mkdtempSync(join(tmpdir(), 'a2a-launch-'))
  mkdirSync(join(pkg, 'bin'))
  mkdirSync(join(pkg, 'src'))
  mkdirSync(join(pkg, 'node_modules'))
  cpSync(LAUNCH, join(pkg, 'bin/launch.js'))
  writeFileSync(join(pkg, 'bin/x.js'), "import { launch } from './launch.js'\nawait launch('x')\n")
  writeFileSync(join(pkg, 'package.json'), '{ "type": "module" }\n')
  // The fallback runs the sources through tsx, as from this repository.
  symlinkSync(join(REPO, 'node_modules/tsx'), join(pkg, 'node_modules/tsx'))
  writeFileSync(join(pkg, 'src/x.ts'), "const from: string = 'source'\nconsole.log(from)\n")
  await writeBuild('dist 1')
})
afterEach(() => rmSync(pkg, { recursive: true, force: true }))

const node = (cwd: string, ...args: string[]) => promisify(execFile)(process.execPath, args, { cwd, env: { ...process.env, A2A_DEBUG: '' } })
const run = async () => (await node(pkg, 'bin/x.js')).stdout.trim()

/** dist/ as the build leaves it: an entry printing `says`, and build.json recording src/x.ts as it is now. */
async function writeBuild(says: string, dir = pkg): Promise<void> {
  mkdirSync(join(dir, 'dist'), { recursive: true })
  const file = `x-${says.replace(/\W/g, '')}.js`
  writeFileSync(join(dir, 'dist', file), `console.log(${JSON.stringify(says)})\n`)
  const key = (await node(dir, '--input-type=module', '-e', "console.log((await import('./bin/launch.js')).statKey('src/x.ts'))")).stdout.trim()
  writeFileSync(join(dir, 'dist/build.json'), JSON.stringify({ entries: { x: file }, inputs: { 'src/x.ts': key } }))
}

it('runs dist/ while the sources are as built', async () => {
  expect(await run()).toBe('dist 1')
})

it('never runs a stale dist/: without a build it can run, the sources run through tsx', async () => {
  appendFileSync(join(pkg, 'src/x.ts'), "console.log('edited')\n")
  expect(await run()).toBe('source\nedited')
  rmSync(join(pkg, 'dist/build.json'))
  expect(await run()).toBe('source\nedited')
})

it('builds first when the sources changed, then runs the new build', async () => {
  mkdirSync(join(pkg, 'src/build'))
  // The launcher's side of the protocol: it calls buildIfStale(), then reads build.json again.
  const build = `export async function buildIfStale() {
  const key = (await import('../../bin/launch.js')).statKey('src/x.ts')
  const { writeFileSync } = await import('node:fs')
  writeFileSync(new URL('../../dist/x-dist2.js', import.meta.url), 'console.log("dist 2")\\n')
  writeFileSync(new URL('../../dist/build.json', import.meta.url), JSON.stringify({ entries: { x: 'x-dist2.js' }, inputs: { 'src/x.ts': key } }))
  return true
}
`
  writeFileSync(join(pkg, 'src/build/build.ts'), build)
  appendFileSync(join(pkg, 'src/x.ts'), '// a comment\n')
  expect(await run()).toBe('dist 2')
})

it('runs dist/ as it is in a published package (no src/)', async () => {
  appendFileSync(join(pkg, 'src/x.ts'), "console.log('edited')\n")
  rmSync(join(pkg, 'src'), { recursive: true })
  expect(await run()).toBe('dist 1')
})
