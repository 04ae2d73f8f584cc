/**
 * The packages as a user gets them: `npm pack` @a2a-agent/runtime and create-a2a-agent (each
 * prepack builds), scaffold apps outside this repository with the packed scaffolder, install them
 * from the registry with both tarballs in place of the versions they ask for, then follow the
 * scaffolder's "Next:" list to the app's own type-check and tests: a PostgreSQL app whose database
 * does not exist yet and whose install fails (the registry unreachable), and a SQLite app made
 * without the install. Nothing in those apps sets the "@a2a-agent/source" condition, so every
 * import of the runtime must resolve to its built JavaScript.
 */
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { unpackWithDependencies } from '../packages/create-a2a-agent/src/build/unpacked.js'
import { exportTargets, SOURCE_CONDITION } from '../packages/runtime/scripts/build.js'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const RUNTIME = join(REPO, 'packages/runtime')
const CLI = join(REPO, 'packages/create-a2a-agent')
const server = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'
const temp = mkdtempSync(join(tmpdir(), 'a2a-published-'))
let runtimeTarball = ''
let cliTarball = ''
const app = join(temp, 'published-agent')
afterAll(() => rmSync(temp, { recursive: true, force: true }), 120_000)

/**
 * This repository's runs set the source condition (NODE_OPTIONS from vitest.config.ts) and npm's
 * script variables; a user's shell has neither.
 */
const userEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') && !name.startsWith('VITEST'))),
  NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replaceAll(`--conditions=${SOURCE_CONDITION}`, '').trim(),
  CI: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
}

/** Runs `command` and resolves to its exit code and output; never throws. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...userEnv, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}`, stdout })
    })
  })
}

/**
 * The runtime's folder copied out, beside the root tsconfig.json its build extends and with this
 * repository's node_modules: packing builds dist/ there, so the dist/ of this repository, which
 * other tests' fingerprints read when it exists, stays as it is while they run.
 */
function stagedRuntime(): string {
  const stage = join(temp, 'stage')
  const dir = join(stage, 'packages/runtime')
  mkdirSync(dir, { recursive: true })
  for (const name of readdirSync(RUNTIME)) {
    if (name === 'node_modules') symlinkSync(join(RUNTIME, name), join(dir, name))
    else if (name !== 'dist') cpSync(join(RUNTIME, name), join(dir, name), { recursive: true })
  }
  cpSync(join(REPO, 'tsconfig.json'), join(stage, 'tsconfig.json'))
  symlinkSync(join(REPO, 'node_modules'), join(stage, 'node_modules'))
  return dir
}

async function pack(dir: string): Promise<{ tarball: string; files: string[] }> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', temp], dir)
  expect(packed.code, packed.output).toBe(0)
  const [result] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[]
  return { tarball: join(temp, result!.filename), files: result!.files.map((file) => file.path).sort() }
}

const filesUnder = (root: string) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))

/** The databases that connections named `appName` (PGAPPNAME) use while `work` runs. */
async function databasesUsedDuring<T>(appName: string, work: () => Promise<T>): Promise<{ result: T; used: Set<string> }> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  const used = new Set<string>()
  let watching = true
  const watcher = (async () => {
    while (watching) {
      const { rows } = await client.query<{ datname: string }>('SELECT DISTINCT datname FROM pg_stat_activity WHERE application_name = $1', [appName])
      for (const { datname } of rows) used.add(datname)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  try {
    return { result: await work(), used }
  } finally {
    watching = false
    await watcher
    await client.end()
  }
}

async function existingDatabases(names: Iterable<string>): Promise<string[]> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = ANY($1)', [[...names]])
    return rows.map((row) => row.datname)
  } finally {
    await client.end()
  }
}

describe('the published packages', () => {
  let runtime: { tarball: string; files: string[] }
  let cli: { tarball: string; files: string[] }

  it('pack: the runtime ships dist/ with JavaScript and declarations for every export, and no sources, tests or fixtures', async () => {
    ;[runtime, cli] = await Promise.all([pack(stagedRuntime()), pack(CLI)])
    runtimeTarball = runtime.tarball
    cliTarball = cli.tarball
    const targets = [...exportTargets(RUNTIME).values()]
    expect(targets.length).toBeGreaterThan(0)
    for (const target of targets) {
      expect(target[SOURCE_CONDITION]).toMatch(/^\.\/src\/.*\.ts$/)
      expect(runtime.files).toContain(target.default!.slice(2))
      expect(runtime.files).toContain(target.types!.slice(2))
    }
    expect(runtime.files.filter((path) => path !== 'package.json' && path !== 'README.md' && !path.startsWith('dist/'))).toEqual([])
    expect(runtime.files.filter((path) => /\.test\.|__fixture__/.test(path))).toEqual([])
    expect(cli.files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'bin/create-a2a-agent.js']))
  }, 120_000)

  it(
    'PostgreSQL: the scaffolder creates the missing database; after a failed install its Next list, followed, ends in passing tests',
    async () => {
      expect(cli?.tarball, 'the pack test must run first').toBeDefined()
      const database = new URL(server)
      database.pathname = `/published_pg_${process.pid}`
      const env = { DATABASE_URL: database.href, PGAPPNAME: `published-packages-${process.pid}` }
      try {
        // The packed scaffolder, unpacked as npm would install it; its dependencies come from this repository.
        const scaffolder = await unpackWithDependencies(cli.tarball, join(temp, 'tools'))
        // The install fails: the registry is a closed port on loopback.
        const offline = { ...env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' }
        const created = await run(process.execPath, [join(scaffolder, 'bin/create-a2a-agent.js'), app, '--database', 'postgresql', '--yes', '--no-git'], temp, offline)
        expect(created.code, created.output).toBe(1)
        expect(created.output).toContain(`Created the database ${database.href}.`)
        expect(created.output).toContain('create-a2a-agent: npm install failed')
        expect(await existingDatabases([database.pathname.slice(1)])).toEqual([database.pathname.slice(1)])
        const next = nextCommands(created.stdout)
        expect(next).toEqual(['npm install', 'npm run generate', 'npx prisma migrate dev --name init', 'npm run db:seed', 'npm run dev', 'npm test'])

        useTarballs(app)
        expect(Object.keys(readManifest(app).dependencies!)).not.toContain('better-sqlite3')
        for (const command of next.filter((command) => command !== 'npm run dev')) {
          if (command === 'npm test') break
          // No install script is needed (no native module on PostgreSQL); Prisma's are off in allowScripts.
          const done = await run('sh', ['-c', command === 'npm install' ? 'npm install --no-audit --no-fund --prefer-offline' : command], app, env)
          expect(done.code, `${command}\n${done.output}`).toBe(0)
        }
        expect(existsSync(join(app, 'node_modules/better-sqlite3')), 'nothing in the PostgreSQL app needs better-sqlite3').toBe(false)
        await checkResolution(app)

        const key = await run('npx', ['a2a', 'keys', 'create', '--user', 'alice'], app, env)
        expect(key.code, key.output).toBe(0)
        expect(key.stdout).toMatch(/^a2a_\S+\n$/)

        const { result, used } = await databasesUsedDuring(env.PGAPPNAME, () =>
          Promise.all([run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', app, '--listFiles'], app), run('npm', ['test'], app, env)]),
        )
        const [typecheck, tests] = result
        expect(typecheck.code, typecheck.output).toBe(0)
        // The runtime's types come from its declarations in dist/, never from its sources.
        const runtimeDir = join(app, 'node_modules/@a2a-agent/runtime')
        const checked = typecheck.stdout.split('\n').filter((path) => path.startsWith(`${runtimeDir}/`))
        expect(checked).toEqual(expect.arrayContaining([join(runtimeDir, 'dist/index.d.ts'), join(runtimeDir, 'dist/prisma.d.ts'), join(runtimeDir, 'dist/prisma-config.d.ts')]))
        expect(checked.filter((path) => !path.endsWith('.d.ts'))).toEqual([])
        expect(tests.code, tests.output).toBe(0)
        // --yes brings the example entity: its generated tests and test/hello.test.ts.
        expect(tests.output).toMatch(/Test Files +2 passed/)
        // Each test file made its own database and dropped it.
        const throwaway = [...used].filter((name) => name.startsWith('test_'))
        expect(throwaway.length).toBeGreaterThan(0)
        expect(await existingDatabases(throwaway)).toEqual([])
      } finally {
        await dropDatabase(database.pathname.slice(1))
      }
    },
    600_000,
  )

  it(
    'SQLite: made without the install, its Next list, followed, ends in passing tests',
    async () => {
      expect(cli?.tarball, 'the pack test must run first').toBeDefined()
      const scaffolder = join(temp, 'tools/node_modules/create-a2a-agent')
      const sqliteApp = join(temp, 'sqlite-agent')
      const created = await run(process.execPath, [join(scaffolder, 'bin/create-a2a-agent.js'), sqliteApp, '--yes', '--no-git', '--no-install'], temp)
      expect(created.code, created.output).toBe(0)
      const next = nextCommands(created.stdout)
      expect(next).toEqual(['npm install', 'npm run generate', 'npx prisma migrate dev --name init', 'npm run db:seed', 'npm run dev', 'npm test'])
      useTarballs(sqliteApp)
      for (const command of next.filter((command) => command !== 'npm run dev')) {
        if (command === 'npm install') {
          // better-sqlite3 would compile for minutes (no prebuilt binary offline): install without
          // scripts and take this repository's build of the same version.
          const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], sqliteApp)
          expect(installed.code, installed.output).toBe(0)
          expect(readManifest(join(sqliteApp, 'node_modules/better-sqlite3')).version).toBe(readManifest(join(REPO, 'node_modules/better-sqlite3')).version)
          cpSync(join(REPO, 'node_modules/better-sqlite3/build'), join(sqliteApp, 'node_modules/better-sqlite3/build'), { recursive: true })
          continue
        }
        const done = await run('sh', ['-c', command], sqliteApp)
        expect(done.code, `${command}\n${done.output}`).toBe(0)
        if (command === 'npm test') expect(done.output).toMatch(/Test Files +2 passed/)
      }
      expect(readdirSync(join(sqliteApp, 'prisma/migrations'))).toEqual([expect.stringMatching(/^\d{14}_init$/), 'migration_lock.toml'])
      await checkResolution(sqliteApp)
      const refused = await run('npx', ['a2a', 'keys', 'create', '--user', 'mallory'], sqliteApp)
      expect(refused.code).toBe(1)
      expect(refused.output).toContain('--user mallory: no User.id is "mallory"')
    },
    600_000,
  )
})

/** The commands of the scaffolder's closing "Next:" list, without the `cd` and the comments. */
function nextCommands(stdout: string): string[] {
  const list = stdout.slice(stdout.lastIndexOf('Next:\n') + 'Next:\n'.length).trimEnd().split('\n')
  return list.map((line) => line.trim().replace(/ +#.*$/, '')).filter((line) => !line.startsWith('cd '))
}

function readManifest(dir: string): Record<string, Record<string, string>> & { version?: string } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
}

/** Outside this repository the app asks for published versions; the tarballs stand in for them. */
function useTarballs(dir: string): void {
  const manifest = readManifest(dir)
  expect(manifest.dependencies!['@a2a-agent/runtime']).toBe('^0.1.0')
  expect(manifest.devDependencies!['create-a2a-agent']).toBe('^0.1.0')
  manifest.dependencies!['@a2a-agent/runtime'] = `file:${runtimeTarball}`
  manifest.devDependencies!['create-a2a-agent'] = `file:${cliTarball}`
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
}

/** Every runtime export and the CLI resolve to built JavaScript in the app's node_modules. */
async function checkResolution(dir: string): Promise<void> {
  const runtimeDir = join(dir, 'node_modules/@a2a-agent/runtime')
  const subpaths = [...exportTargets(RUNTIME).keys()].map((subpath) => `@a2a-agent/runtime${subpath.slice(1)}`)
  const resolved = await run(process.execPath, ['--input-type=module', '-e', `for (const s of ${JSON.stringify([...subpaths, 'create-a2a-agent'])}) console.log(import.meta.resolve(s))`], dir)
  expect(resolved.code, resolved.output).toBe(0)
  expect(resolved.stdout.trim().split('\n')).toEqual([
    ...[...exportTargets(RUNTIME).values()].map((target) => `file://${join(runtimeDir, target.default!)}`),
    `file://${join(dir, 'node_modules/create-a2a-agent/dist/index.js')}`,
  ])
  const shipped = filesUnder(runtimeDir)
  expect(shipped.filter((path) => path.endsWith('.test.js') || path.includes('__fixture__') || path.startsWith('src/'))).toEqual([])
  const programmatic = await run(process.execPath, ['--input-type=module', '-e', "const { runA2a } = await import('create-a2a-agent'); console.log(typeof runA2a)"], dir)
  expect(programmatic.stdout, programmatic.output).toBe('function\n')
}

async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  } finally {
    await client.end()
  }
}
