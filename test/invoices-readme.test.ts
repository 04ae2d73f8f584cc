/**
 * examples/invoices/README.md runs as written: its first command (generate, migrate, seed, dev) on a
 * copy of the example, then its curl commands against the running agent, with the development keys
 * and with an API key from `npx a2a keys create`.
 */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { freePort } from './free-port.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const example = join(root, 'examples/invoices')

it('the invoices README: the first command starts the agent, and its curl commands answer', { timeout: 240_000 }, async () => {
  const readme = await readFile(join(example, 'README.md'), 'utf8')
  const [commands, tryIt, withKey] = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
  const [start, test] = commands!.trim().split('\n')
  expect(test).toBe('npm test')
  const curls = tryIt!.split(/\n(?=curl )/).map((command) => command.trim())
  expect(curls).toHaveLength(2)

  // A copy inside the repository, so Node and npm resolve the workspace packages from the root
  // node_modules; without its tests, which a concurrently starting vitest would otherwise collect.
  const dir = mkdtempSync(join(root, 'test', '.readme-invoices-'))
  cpSync(example, dir, {
    recursive: true,
    filter: (path) => !['node_modules', 'generated'].includes(basename(path)) && !/\.db(-\w+)?$/.test(path) && !path.endsWith('.test.ts'),
  })
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) }
  delete env.DATABASE_URL // the README's default: dev.db in the app
  let output = ''
  // Its own process group: `npm run dev` is npm, then tsx watch, then the server; all must stop.
  const child = spawn('sh', ['-c', start!], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  try {
    // Until the server answers, unless the command ends first: its output then says why.
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`the README's first command exited (${code}):\n${output}`)
    })
    exited.catch(() => {}) // also ends when the finally block stops it
    const card = () =>
      fetch(`http://127.0.0.1:${port}/a2a/invoices/.well-known/agent-card.json`).then(
        (response) => response.ok,
        () => false,
      )
    await Promise.race([expect.poll(card, { timeout: 180_000, interval: 250 }).toBe(true), exited])
    // serve()'s probes: the process is up, and ready (its database answers, its tables are current).
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status)).toBe(200)
    expect(await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.json())).toEqual({ status: 'ready' })
    const curl = async (command: string) => {
      const { stdout } = await promisify(execFile)('sh', ['-c', command.replaceAll('localhost:3000', `127.0.0.1:${port}`)])
      return JSON.parse(stdout).result.task
    }
    const created = await curl(curls[0]!)
    expect(created.status.state).toBe('TASK_STATE_COMPLETED')
    expect(created.artifacts[0].parts[0].data).toMatchObject({ name: 'Acme', userId: 'alice' })
    const overdue = await curl(curls[1]!)
    expect(overdue.status.state).toBe('TASK_STATE_COMPLETED')
    expect(overdue.status.message.parts[0].text).toBe('Nothing is overdue.')

    // An API key from `npx a2a keys create`, as a person's shell runs it: the bin finds this
    // repository's runtime sources without the source condition vitest sets.
    const shell = { ...env, NODE_OPTIONS: (env.NODE_OPTIONS ?? '').replaceAll('--conditions=@a2a-agent/source', '').trim() }
    const { stdout } = await promisify(execFile)('sh', ['-c', withKey!.replaceAll('localhost:3000', `127.0.0.1:${port}`)], { cwd: dir, env: shell })
    expect(JSON.parse(stdout).result.task.status.message.parts[0].text).toBe('Nothing is overdue.')
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
})
