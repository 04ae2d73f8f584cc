import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Plan } from '@a2a-agent/generators'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { runA2a } from './index.js'
import { captureIo } from './test-io.js'

const BIN = fileURLToPath(new URL('../../bin/a2a.js', import.meta.url))

describe('bin/a2a.js (real process)', () => {
  it('prints the generate entities usage', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, 'generate', 'entities', '--help'], {
      env: { ...process.env, COLUMNS: '80' },
    })
    expect(stderr).toBe('')
    expect(stdout).toMatch(/^Usage: a2a generate entities \[options\]\n/)
    for (const flag of ['--app', '--entities', '--schema', '--dry-run', '--diff', '--check', '--force']) {
      expect(stdout).toContain(`  ${flag} `)
    }
    expect(stdout).toContain('Modes (pick at most one):')
    expect(stdout).toContain('[default: src/entities.ts]')
  })
})

describe('runA2a', () => {
  let root: string
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'a2a-cli-'))
  })
  afterEach(() => rm(root, { recursive: true, force: true }))

  const planned: Plan = { files: [{ path: 'src/a2a/x.gen.ts', content: 'x\n', ownership: 'generated' }] }

  async function a2a(...args: string[]) {
    const { io, stdout, stderr } = captureIo()
    const planner = vi.fn(async () => planned)
    const code = await runA2a(args, io, { planner, cwd: root })
    return { code, stdout: stdout(), stderr: stderr(), planner }
  }

  it('runs generate entities with the parsed flags', async () => {
    const dry = await a2a('generate', 'entities', '--dry-run')
    expect(dry).toMatchObject({ code: 0, stderr: '' })
    expect(dry.stdout).toBe('would create  src/a2a/x.gen.ts\nwould create  .a2a/manifest.json\nDry run, nothing written: 1 to create.\n')
    expect(dry.planner).toHaveBeenCalledWith({ appRoot: root })

    expect((await a2a('generate', 'entities', '--check')).code).toBe(1)
    expect((await a2a('generate', 'entities')).stdout).toBe('created  src/a2a/x.gen.ts\ncreated  .a2a/manifest.json\nDone: 1 created.\n')
    expect(await a2a('generate', 'entities', '--check')).toMatchObject({
      code: 0,
      stdout: 'Up to date: 1 generated file matches the plan.\n',
    })
  })

  it('refuses --check with --dry-run as a usage error, before planning', async () => {
    const { code, stdout, stderr, planner } = await a2a('generate', 'entities', '--check', '--dry-run')
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('a2a: --dry-run and --check cannot be combined; pick one.\nRun `a2a generate entities --help` for usage.\n')
    expect(planner).not.toHaveBeenCalled()
  })

  it('refuses unknown flags and commands', async () => {
    expect(await a2a('generate', 'entities', '--dryrun')).toMatchObject({
      code: 1,
      stderr: 'a2a: Unknown argument: dryrun\nRun `a2a generate entities --help` for usage.\n',
    })
    expect(await a2a('generate', 'entitys')).toMatchObject({
      code: 1,
      stderr: 'a2a: Unknown command "entitys". Did you mean entities?\nRun `a2a generate --help` for usage.\n',
    })
    expect(await a2a('deploy')).toMatchObject({ code: 1, stderr: expect.stringContaining('Unknown argument: deploy') })
    expect(await a2a()).toMatchObject({ code: 1, stderr: expect.stringContaining('Name a command') })
    expect(await a2a('generate')).toMatchObject({ code: 1, stderr: expect.stringContaining('Name what to generate') })
  })

  it('prints help and the version in-process with exit 0', async () => {
    const help = await a2a('--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('a2a generate')
    expect(await a2a('--version')).toMatchObject({ code: 0, stdout: '0.1.0\n' })
  })
})
