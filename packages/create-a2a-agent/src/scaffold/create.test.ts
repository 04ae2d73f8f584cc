import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseSigningKeys } from '@a2a-agent/runtime'
import { captureIo } from '../cli/test-io.js'
import { runCreate } from './index.js'
import type { Prompter } from './prompts.js'
import type { Run } from './steps.js'
import { DATABASE_NAMES, databaseOfUrl, targetPath } from './templates.js'

const root = mkdtempSync(join(tmpdir(), 'create-a2a-agent-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let serial = 0
function target(): string {
  return join(root, `app-${++serial}`)
}

function files(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort()
}

const read = (directory: string, path: string) => readFileSync(join(directory, path), 'utf8')

// Fails the test if anything would spawn: these runs pass --no-install --no-git.
const noRun: Run = async (command) => {
  throw new Error(`unexpected command: ${command}`)
}

describe('create-a2a-agent with flags', () => {
  it('--yes writes the SQLite app with the example entity and prints the next commands', async () => {
    const dir = target()
    const { io, stdout, stderr } = captureIo()
    expect(await runCreate([dir, '--yes', '--no-install', '--no-git'], io, { run: noRun })).toBe(0)
    expect(stderr()).toBe('')
    expect(files(dir)).toEqual([
      '.dockerignore',
      '.env',
      '.env.example',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'package.json',
      'prisma.config.ts',
      'prisma/schema.prisma',
      'src/app.ts',
      'src/db.ts',
      'src/entities.ts',
      'src/hello.ts',
      'src/main.ts',
      'test/hello.test.ts',
      'test/support.ts',
      'tsconfig.json',
    ])
    // .env holds this app's own card signing key, which the runtime accepts.
    const signingKey = /^A2A_CARD_SIGNING_KEY=(.+)$/m.exec(read(dir, '.env'))![1]!
    expect(parseSigningKeys(signingKey)[0]).toMatchObject({ alg: 'ES256', privateKey: expect.anything() })
    const pkg = JSON.parse(read(dir, 'package.json'))
    expect(pkg.name).toBe('app-1')
    expect(pkg.scripts).toMatchObject({
      generate: 'a2a generate entities && prisma generate',
      typecheck: 'tsc',
      test: 'tsc && vitest run',
      'db:migrate': 'prisma migrate deploy',
      'db:change': 'a2a generate entities && prisma migrate deploy && prisma migrate dev',
      'db:seed': 'prisma db seed',
    })
    expect(pkg.dependencies['@a2a-agent/runtime']).toBe('^0.1.0')
    expect(pkg.dependencies['better-sqlite3']).toBe('12.11.1')
    expect(pkg.overrides).toEqual({ 'better-sqlite3': '$better-sqlite3' })
    expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true, prisma: false, '@prisma/engines': false, '@prisma/client': false, protobufjs: false })
    expect(read(dir, 'prisma/schema.prisma')).toMatch(/provider = "sqlite"[\s\S]*model Note \{[\s\S]*userId +String/)
    expect(read(dir, 'prisma.config.ts')).toContain("import { prismaConfig } from '@a2a-agent/runtime/prisma-config'")
    expect(read(dir, 'prisma.config.ts')).toContain("defaultUrl: 'file:./dev.db',")
    // Random development keys in the git-ignored .env; none in the example file or the code.
    expect(read(dir, '.env')).toMatch(/^A2A_DEV_KEYS=alice:dev-alice-[\w-]{24},bob:dev-bob-[\w-]{24}$/m)
    expect(read(dir, '.env.example')).toMatch(/^A2A_DEV_KEYS=$/m)
    expect(read(dir, '.gitignore')).toMatch(/^\.env$/m)
    for (const path of files(dir).filter((path) => path !== '.env')) expect(read(dir, path)).not.toMatch(/key-alice|dev-alice-/)
    expect(read(dir, 'src/main.ts')).toContain('withDevKeys(apiKeyResolver(db))')
    expect(read(dir, 'src/entities.ts')).toContain("notes: {\n    model: 'Note',\n    ownerField: 'userId',")
    expect(stdout()).toContain('(sqlite, example notes entity): 16 files.')
    expect(stdout()).toMatch(
      /Next:\n {2}cd .*app-1\n {2}npm install\n {2}npm run generate\n {2}npx prisma migrate dev --name init\n {2}npm run db:seed\n {2}npm run dev .*\n {2}npm test\n$/,
    )
  })

  it('--database postgresql --empty picks the PostgreSQL variants and just a User model', async () => {
    const dir = target()
    const { io } = captureIo()
    expect(await runCreate([dir, '--database', 'postgresql', '--empty', '--no-install', '--no-git'], io, { run: noRun })).toBe(0)
    expect(files(dir)).toEqual(files(join(root, 'app-1')))
    expect(read(dir, '.env')).toMatch(/^DATABASE_URL=postgresql:\/\/postgres@localhost:5432\/app_2$/m)
    const pkg = JSON.parse(read(dir, 'package.json'))
    expect(Object.keys(pkg.dependencies)).toEqual(['@a2a-agent/runtime', '@opentelemetry/sdk-node', '@prisma/adapter-pg', '@prisma/client', 'express', 'pg', 'tsx'])
    expect(pkg.overrides).toBeUndefined()
    const schema = read(dir, 'prisma/schema.prisma')
    expect(schema).toContain('provider = "postgresql"')
    expect(schema).not.toContain('Note')
    expect(read(dir, 'prisma.config.ts')).toContain("defaultUrl: 'postgresql://postgres@localhost:5432/app_2',")
    expect(read(dir, 'test/support.ts')).toContain('DROP DATABASE IF EXISTS')
    expect(read(dir, 'src/main.ts')).not.toContain('prepareSqlite')
    expect(read(dir, 'src/entities.ts')).toMatch(/defineEntities\(\{\n {2}\/\/ notes:/)
  })

  it('--database mysql picks the MySQL variants: the mariadb adapter, a2a migrate in the scripts, a throwaway database per test file', async () => {
    const dir = target()
    const { io, stdout } = captureIo()
    expect(await runCreate([dir, '--database', 'mysql', '--empty', '--no-install', '--no-git'], io, { run: noRun })).toBe(0)
    expect(files(dir)).toEqual(files(join(root, 'app-1')))
    expect(read(dir, '.env')).toMatch(/^DATABASE_URL=mysql:\/\/root@localhost:3306\/app_\d+$/m)
    const pkg = JSON.parse(read(dir, 'package.json'))
    expect(Object.keys(pkg.dependencies)).toEqual(['@a2a-agent/runtime', '@opentelemetry/sdk-node', '@prisma/adapter-mariadb', '@prisma/client', 'express', 'mariadb', 'tsx'])
    expect(pkg.scripts['db:migrate']).toBe('a2a migrate deploy')
    expect(pkg.scripts['db:change']).toBe('a2a generate entities && prisma generate && a2a migrate dev')
    expect(read(dir, 'prisma/schema.prisma')).toContain('provider = "mysql"')
    expect(read(dir, 'src/db.ts')).toContain('new PrismaMariaDb(')
    expect(read(dir, 'src/db.ts')).toContain('new MysqlStore(url, { max: databasePoolSize() })')
    expect(read(dir, 'src/main.ts')).toContain('const [db, store] = [createDb(), createStore()]')
    expect(read(dir, 'src/main.ts')).not.toContain('PrismaStore')
    expect(read(dir, 'test/support.ts')).toContain("import mariadb from 'mariadb'")
    expect(read(dir, 'README.md')).toContain('a2a migrate dev --create-only')
    expect(stdout()).toMatch(/Next:\n {2}cd .*\n {2}npm install\n {2}npm run generate\n {2}npx a2a migrate dev --name init && npx prisma generate\n {2}npm run db:seed\n/)
  })

  it('PostgreSQL it cannot reach: stops before writing anything, saying what to fix', async () => {
    const dir = target()
    const previous = process.env.DATABASE_URL
    // Port 9 (discard) on loopback: nothing listens there.
    process.env.DATABASE_URL = 'postgresql://root:secret@127.0.0.1:9/nowhere'
    const { io, stdout, stderr } = captureIo()
    try {
      expect(await runCreate([dir, '--database', 'postgresql', '--yes', '--no-git'], io, { run: noRun })).toBe(1)
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL
      else process.env.DATABASE_URL = previous
    }
    expect(stderr()).toMatch(
      /^create-a2a-agent: postgresql:\/\/root:\*\*\*@127\.0\.0\.1:9\/nowhere: cannot reach PostgreSQL at 127\.0\.0\.1:9 as root: .*Start the server, or set DATABASE_URL to one you can reach\. Nothing was written\.\n$/,
    )
    expect(stdout()).toBe('')
    expect(existsSync(dir)).toBe(false)
  })

  it('refuses a non-empty target and writes nothing', async () => {
    const dir = target()
    mkdirSync(dir)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    const { io, stdout, stderr } = captureIo()
    expect(await runCreate([dir, '--yes', '--no-install', '--no-git'], io, { run: noRun })).toBe(1)
    expect(stderr()).toMatch(/is not empty \(notes\.txt\); nothing was written/)
    expect(stdout()).toBe('')
    expect(readdirSync(dir)).toEqual(['notes.txt'])
  })

  it('refuses a folder name npm would refuse as the package name, suggesting one, and writes nothing', async () => {
    const { io, stdout, stderr } = captureIo()
    const dir = join(root, 'My Agent!')
    expect(await runCreate([dir, '--yes', '--no-install', '--no-git'], io, { run: noRun })).toBe(1)
    expect(stderr()).toBe(
      `create-a2a-agent: "My Agent!" cannot name the app, whose package.json takes the folder's name: name can only contain URL-friendly characters; name can no longer contain capital letters; name can no longer contain special characters ("~'!()*"). Nothing was written. Try ${join(root, 'my-agent')} instead.\n`,
    )
    expect(stdout()).toBe('')
    expect(existsSync(dir)).toBe(false)
  })

  it('quotes the printed commands for the shell', async () => {
    const dir = join(root, 'with space', 'app-quoted')
    const { io, stdout } = captureIo()
    expect(await runCreate([dir, '--yes', '--no-install', '--no-git'], io, { run: noRun })).toBe(0)
    expect(stdout()).toContain(`Next:\n  cd '${relative(process.cwd(), dir)}'\n`)
  })

  it('--packages: the tarballs land in vendor/ and the app depends on them there, as on published versions', async () => {
    const packs = join(root, 'packs')
    mkdirSync(packs)
    const missing = captureIo()
    expect(await runCreate([target(), '--packages', packs, '--yes', '--no-install', '--no-git'], missing.io, { run: noRun })).toBe(1)
    expect(missing.stderr()).toMatch(
      /^create-a2a-agent: --packages .*packs: no a2a-agent-runtime-<version>\.tgz in it; run `npm pack --pack-destination .*packs` in packages\/runtime/,
    )
    writeFileSync(join(packs, 'a2a-agent-runtime-0.1.0.tgz'), 'runtime')
    writeFileSync(join(packs, 'create-a2a-agent-0.1.0.tgz'), 'cli')
    const dir = target()
    const { io, stderr } = captureIo()
    expect(await runCreate([dir, '--packages', packs, '--yes', '--no-install', '--no-git'], io, { run: noRun })).toBe(0)
    expect(stderr()).toBe('')
    expect(readdirSync(join(dir, 'vendor'))).toEqual(['a2a-agent-runtime-0.1.0.tgz', 'create-a2a-agent-0.1.0.tgz'])
    expect(read(dir, 'vendor/a2a-agent-runtime-0.1.0.tgz')).toBe('runtime')
    const pkg = JSON.parse(read(dir, 'package.json'))
    expect(pkg.dependencies['@a2a-agent/runtime']).toBe('file:vendor/a2a-agent-runtime-0.1.0.tgz')
    expect(pkg.devDependencies['create-a2a-agent']).toBe('file:vendor/create-a2a-agent-0.1.0.tgz')
    // Installed from a tarball, the runtime is its built JavaScript: no source condition anywhere.
    expect(read(dir, 'prisma.config.ts')).toContain("from '@a2a-agent/runtime/prisma-config'")
    expect(read(dir, 'tsconfig.json')).not.toContain('@a2a-agent/source')
    expect(pkg.scripts.dev).toBe('tsx watch src/main.ts')
    expect(read(dir, 'README.md')).toContain('## Layout\n\n- `vendor/`: `@a2a-agent/runtime` and `create-a2a-agent` as packed from a clone')
    expect(read(join(root, 'app-1'), 'README.md')).not.toContain('vendor/')
  })

  it('reports usage errors and prints help', async () => {
    const bad = captureIo()
    expect(await runCreate(['x', '--database', 'mongodb'], bad.io)).toBe(1)
    expect(bad.stderr()).toMatch(/--database "mongodb" is not one this scaffolds; pick one of sqlite \| postgresql \| mysql[\s\S]*Run `create-a2a-agent --help`/)
    const conflicting = captureIo()
    expect(await runCreate(['x', '--example', '--empty'], conflicting.io)).toBe(1)
    const help = captureIo()
    expect(await runCreate(['--help'], help.io)).toBe(0)
    expect(help.stdout()).toContain('Usage: create-a2a-agent [directory] [options]')
    expect(existsSync(join(process.cwd(), 'x'))).toBe(false)
  })
})

describe('create-a2a-agent steps', () => {
  it.each([
    [
      'pnpm/9.12.0 npm/? node/v20.19.0 linux x64',
      'pnpm install',
      ['pnpm install', 'pnpm generate', 'pnpm exec prisma migrate dev --name init', 'pnpm db:seed', 'pnpm dev', 'pnpm test'],
      {},
      ['pnpm db:migrate && pnpm dev', 'pnpm db:change --name add_due_date', 'KEY=$(pnpm exec a2a keys create --user alice)', '`pnpm exec prisma studio`'],
    ],
    [
      'yarn/4.5.0 npm/? node/v20.19.0 linux x64',
      'yarn install',
      ['yarn', 'yarn generate', 'yarn prisma migrate dev --name init', 'yarn db:seed', 'yarn dev', 'yarn test'],
      { resolutions: { 'better-sqlite3': '12.11.1' } },
      ['yarn db:migrate && yarn dev', 'yarn db:change --name add_due_date', 'KEY=$(yarn a2a keys create --user alice)', '`yarn prisma studio`'],
    ],
    [
      'bun/1.1.30 npm/? node/v20.19.0 linux x64',
      'bun install',
      ['bun install', 'bun run generate', 'bunx prisma migrate dev --name init', 'bun run db:seed', 'bun run dev', 'bun run test'],
      { overrides: { 'better-sqlite3': '12.11.1' }, trustedDependencies: ['better-sqlite3'] },
      ['bun run db:migrate && bun run dev', 'bun run db:change --name add_due_date', 'KEY=$(bunx a2a keys create --user alice)', '`bunx prisma studio`'],
    ],
  ])('started by %s, installs with it, prints its commands and writes them into the app', async (agent, install, printed, settings, readme) => {
    const dir = target()
    const calls: string[] = []
    const failing: Run = async (command, args) => {
      calls.push([command, ...args].join(' '))
      return { code: 1, stdout: '', stderr: 'offline' }
    }
    const previous = process.env.npm_config_user_agent
    process.env.npm_config_user_agent = agent
    const { io, stdout } = captureIo()
    try {
      expect(await runCreate([dir, '--yes', '--no-git'], io, { run: failing })).toBe(1)
    } finally {
      if (previous === undefined) delete process.env.npm_config_user_agent
      else process.env.npm_config_user_agent = previous
    }
    expect(calls).toEqual([install])
    const next = stdout()
      .slice(stdout().indexOf('Next:\n'))
      .split('\n')
      .slice(2, -1)
      .map((line) => line.trim().replace(/ +#.*/, ''))
    expect(next).toEqual(printed)
    // The app's own README, settings and comments speak the same package manager; npm's settings are left out.
    const pkg = JSON.parse(read(dir, 'package.json'))
    expect(pkg).toMatchObject(settings)
    expect(pkg.allowScripts).toBeUndefined()
    for (const line of readme) expect(read(dir, 'README.md')).toContain(line)
    for (const path of ['README.md', '.env.example', 'prisma/schema.prisma']) expect(read(dir, path), path).not.toMatch(/\bnpm run\b|\bnpx\b/)
    expect(existsSync(join(dir, '.yarnrc.yml'))).toBe(install === 'yarn install')
    // pnpm 11 and later read their settings only from pnpm-workspace.yaml; package.json holds none.
    expect(pkg.pnpm).toBeUndefined()
    expect(existsSync(join(dir, 'pnpm-workspace.yaml'))).toBe(install === 'pnpm install')
    if (install === 'pnpm install') {
      expect(read(dir, 'pnpm-workspace.yaml')).toContain('overrides:\n  better-sqlite3: 12.11.1\n')
      expect(read(dir, 'pnpm-workspace.yaml')).toContain('allowBuilds:\n  better-sqlite3: true\n')
    }
  })

  it('keeps the files and prints how to finish when npm install fails', async () => {
    const dir = target()
    const failing: Run = async (command) => ({ code: command === 'git' ? 0 : 1, stdout: '', stderr: 'ENOTFOUND registry' })
    const { io, stdout, stderr } = captureIo()
    expect(await runCreate([dir, '--yes'], io, { run: failing })).toBe(1)
    expect(stderr()).toBe('create-a2a-agent: npm install failed:\nENOTFOUND registry\n')
    expect(stdout()).toMatch(
      /- Installing dependencies .*failed\n\nThe app's files are in .*; fix the problem above, then finish by hand.\nNext:\n {2}cd .*\n {2}npm install\n {2}npm run generate\n {2}npx prisma migrate dev --name init\n {2}npm run db:seed\n {2}npm run dev .*\n {2}npm test\n$/,
    )
    expect(existsSync(join(dir, 'package.json'))).toBe(true)
  })

  it('skips git init inside another work tree', async () => {
    const dir = target()
    const calls: string[] = []
    const inside: Run = async (command, args) => {
      calls.push([command, ...args].join(' '))
      return { code: 0, stdout: 'true\n', stderr: '' }
    }
    const { io, stdout } = captureIo()
    expect(await runCreate([dir, '--yes', '--no-install'], io, { run: inside })).toBe(0)
    expect(calls).toEqual(['git rev-parse --is-inside-work-tree'])
    expect(stdout()).toContain('(skipped: the folder is already inside a git repository)')
  })
})

/** Answers in order, as a person would; a refused text answer is recorded and the next one taken. */
function scripted(answers: unknown[]) {
  const asked: string[] = []
  const refused: string[] = []
  const next = (message: string) => {
    asked.push(message)
    if (answers.length === 0) throw new Error(`no answer left for "${message}"`)
    const answer = answers.shift()
    if (answer instanceof Error) throw answer
    return answer
  }
  const prompter: Prompter = {
    async text({ message, validate }) {
      for (;;) {
        const answer = next(message) as string
        const why = validate(answer)
        if (!why) return answer
        refused.push(why)
      }
    },
    async select({ message, choices }) {
      const answer = next(message)
      expect(choices.map((choice) => choice.value)).toContain(answer)
      return answer as never
    },
    async confirm({ message }) {
      return next(message) as boolean
    },
  }
  return { prompter, asked, refused }
}

describe('create-a2a-agent prompts', () => {
  it('asks what the flags leave open', async () => {
    const dir = target()
    const { prompter, asked } = scripted(['postgresql', 'empty', false])
    const { io } = captureIo()
    expect(await runCreate([dir, '--no-git'], io, { prompter, run: noRun })).toBe(0)
    expect(asked).toEqual(['Which database?', 'Start with?', 'Install dependencies, generate and migrate now?'])
    expect(read(dir, 'prisma/schema.prisma')).toContain('provider = "postgresql"')
    expect(read(dir, 'prisma/schema.prisma')).not.toContain('Note')
  })

  it('asks for the folder when it is omitted, saying why an answer is refused', async () => {
    const taken = target()
    mkdirSync(taken)
    writeFileSync(join(taken, 'notes.txt'), 'mine')
    const dir = target()
    const { prompter, asked, refused } = scripted(['  ', taken, join(root, 'Two Words'), dir, 'sqlite'])
    const { io } = captureIo()
    expect(await runCreate(['--example', '--no-install', '--no-git'], io, { prompter, run: noRun })).toBe(0)
    expect(asked).toEqual(['Where should the agent go?', 'Where should the agent go?', 'Where should the agent go?', 'Where should the agent go?', 'Which database?'])
    expect(refused).toEqual([
      'the folder name is empty; type one, e.g. my-agent',
      `${taken} is not empty (notes.txt); nothing was written. Pick a new folder name, or empty this one first.`,
      expect.stringMatching(
        /^"Two Words" cannot name the app, whose package\.json takes the folder's name: name can only contain URL-friendly characters; .* Try .*\/two-words instead\.$/,
      ),
    ])
    expect(existsSync(join(dir, 'package.json'))).toBe(true)
  })

  it('without a terminal, a missing folder is a usage error', async () => {
    const { io, stderr } = captureIo()
    expect(await runCreate(['--yes'], io, { run: noRun })).toBe(1)
    expect(stderr()).toBe('create-a2a-agent: name the folder to create, e.g. `create-a2a-agent my-agent` (it is asked for only in a terminal, without --yes).\n')
  })

  it('stops without writing when a prompt is cancelled', async () => {
    const dir = target()
    const { prompter } = scripted([Object.assign(new Error('cancelled at a prompt'), { name: 'AbortError' })])
    const { io, stderr } = captureIo()
    expect(await runCreate([dir, '--no-git'], io, { prompter, run: noRun })).toBe(1)
    expect(stderr()).toBe('create-a2a-agent: cancelled; nothing was written.\n')
    expect(existsSync(dir)).toBe(false)
  })

  it('--yes never asks', async () => {
    const { prompter } = scripted([])
    const { io } = captureIo()
    expect(await runCreate([target(), '--yes', '--no-install', '--no-git'], io, { prompter, run: noRun })).toBe(0)
  })
})

describe('the DATABASES table', () => {
  it('names the database of a DATABASE_URL by its scheme, none for one it does not offer', () => {
    const urls = ['file:./dev.db', 'postgres://h/x', 'postgresql://h/x', 'mysql://h/x', 'mariadb://h/x', 'mongodb://h/x']
    expect(urls.map(databaseOfUrl)).toEqual(['sqlite', 'postgresql', 'postgresql', 'mysql', 'mysql', undefined])
  })

  it('gives the files marked server to the databases that run as one, and a database its own', () => {
    expect(DATABASE_NAMES).toEqual(['sqlite', 'postgresql', 'mysql'])
    expect(DATABASE_NAMES.map((database) => targetPath('test/support.server.ts.hbs', database))).toEqual([undefined, 'test/support.ts', 'test/support.ts'])
    expect(DATABASE_NAMES.map((database) => targetPath('src/db.mysql.ts.hbs', database))).toEqual([undefined, undefined, 'src/db.ts'])
    expect(targetPath('_gitignore', 'sqlite')).toBe('.gitignore')
  })
})
