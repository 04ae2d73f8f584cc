/**
 * The scaffolded app's Dockerfile, checked with a Dockerfile parser (no container daemon runs
 * here): its stages and base image, the migration step as a target of its own, production
 * dependencies only in the image that runs, a non-root user, and every COPY source present in a
 * scaffolded app and not left out by its .dockerignore.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, type CommandEntry } from 'docker-file-parser'
import { afterAll, describe, expect, it } from 'vitest'
import { captureIo } from '../cli/test-io.js'
import { runCreate } from './index.js'
import type { Run } from './steps.js'

const root = mkdtempSync(join(tmpdir(), 'create-a2a-agent-docker-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const noRun: Run = async (command) => {
  throw new Error(`unexpected command: ${command}`)
}

/** The Dockerfile's instructions by stage (FROM … AS name). */
function stages(commands: CommandEntry[]): Map<string, { from: string; commands: CommandEntry[] }> {
  const byName = new Map<string, { from: string; commands: CommandEntry[] }>()
  let current: CommandEntry[] = []
  for (const command of commands) {
    if (command.name === 'FROM') {
      const [image, as, name] = String(command.args).split(/\s+/)
      expect(as?.toUpperCase(), `FROM on line ${command.lineno} names its stage`).toBe('AS')
      current = []
      byName.set(name!, { from: image!, commands: current })
    } else current.push(command)
  }
  return byName
}

const args = (command: CommandEntry): string[] => (Array.isArray(command.args) ? command.args : String(command.args).split(/\s+/))

/** Whether a .dockerignore pattern list leaves `path` out (its plain patterns, as this file writes them). */
function ignored(patterns: string[], path: string): boolean {
  let out = false
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!')
    const body = negated ? pattern.slice(1) : pattern
    const regex = new RegExp(`^${body.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`)
    if (regex.test(path)) out = !negated
  }
  return out
}

describe.each(['sqlite', 'postgresql', 'mysql'])('the %s app', (database) => {
  const app = join(root, `${database}-app`)

  it('builds in three stages from node:20-slim: build, migrate (the documented migration step), app (non-root, production deps)', async () => {
    const { io } = captureIo()
    expect(await runCreate([app, '--database', database, '--yes', '--no-install', '--no-git'], io, { run: noRun })).toBe(0)
    const dockerfile = readFileSync(join(app, 'Dockerfile'), 'utf8')
    const commands = parse(dockerfile, { includeComments: false })
    expect(commands.filter((command) => command.error)).toEqual([])
    const byName = stages(commands)
    expect([...byName.keys()]).toEqual(['build', 'migrate', 'app'])
    expect(byName.get('build')!.from).toBe('node:20-slim')
    expect(byName.get('app')!.from).toBe('node:20-slim')
    expect(byName.get('migrate')!.from).toBe('build')

    // The migration step runs the app's own script, which must exist.
    const scripts = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).scripts as Record<string, string>
    const migrate = byName.get('migrate')!.commands
    expect(migrate.find((command) => command.name === 'CMD')!.args).toEqual(['npm', 'run', 'db:migrate'])
    // MySQL migrates with a2a (create-a2a-agent, installed in the build stage): Prisma's wasm engine has no MySQL connector.
    expect(scripts['db:migrate']).toBe(`${database === 'mysql' ? 'a2a' : 'prisma'} migrate deploy`)
    expect(dockerfile).toContain('docker build --target migrate')

    const final = byName.get('app')!.commands
    expect(final.some((command) => command.name === 'RUN' && String(command.args).includes('npm ci --omit=dev'))).toBe(true)
    const users = final.filter((command) => command.name === 'USER').map((command) => String(command.args))
    expect(users.length).toBeGreaterThan(0)
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/)
    // The user is set before the command that runs the app; node (not npm) receives SIGTERM.
    expect(final.findIndex((command) => command.name === 'USER')).toBeLessThan(final.findIndex((command) => command.name === 'CMD'))
    expect(final.find((command) => command.name === 'CMD')!.args).toEqual(['node', '--import', 'tsx', 'src/main.ts'])
    expect(String(final.find((command) => command.name === 'HEALTHCHECK')!.args)).toContain('/healthz')

    // Every COPY source is in the scaffolded app, and the build context keeps it.
    const patterns = readFileSync(join(app, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
    const appFiles = readdirSync(app)
    for (const [name, stage] of byName) {
      for (const copy of stage.commands.filter((command) => command.name === 'COPY')) {
        const parts = args(copy)
        const from = parts.find((part) => part.startsWith('--from='))?.slice('--from='.length)
        const sources = parts.filter((part) => !part.startsWith('--')).slice(0, -1)
        for (const source of sources) {
          // From the build stage: a path of its /app, which the build context filled.
          const path = from ? source.replace(/^\/app\//, '') : source
          if (from) expect(byName.has(from), `stage ${name} copies from stage ${from}`).toBe(true)
          if (path === '.') continue
          const matches = path.includes('*') ? appFiles.filter((file) => new RegExp(`^${path.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`).test(file)) : [path]
          expect(matches.length, `${source} (line ${copy.lineno}) matches a file of the app`).toBeGreaterThan(0)
          for (const match of matches) {
            expect(existsSync(join(app, match)), `${match} exists in the scaffolded app`).toBe(true)
            expect(ignored(patterns, match), `${match} is not left out by .dockerignore`).toBe(false)
          }
        }
      }
    }
    // What is made inside the image, and the secrets, stay out of the build context.
    for (const path of ['node_modules', 'src/generated', '.env', 'dev.db']) expect(ignored(patterns, path), path).toBe(true)
    expect(ignored(patterns, 'src/main.ts')).toBe(false)
  })
})
