import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GeneratorError } from '../errors.js'
import { loadDeclarations } from './declarations.js'

let app: string
beforeEach(async () => {
  app = await mkdtemp(join(tmpdir(), 'a2a-entities-'))
  await mkdir(join(app, 'src'))
})
afterEach(() => rm(app, { recursive: true, force: true }))

const write = (file: string, text: string) => writeFile(join(app, file), text)

describe('loadDeclarations', () => {
  it('imports the TypeScript file and returns its default export', async () => {
    await write('src/entities.ts', "const owner: string = 'userId'\nexport default { invoices: { model: 'Invoice', ownerField: owner } }\n")
    expect(await loadDeclarations(app)).toEqual({ invoices: { model: 'Invoice', ownerField: 'userId' } })
  })

  it('takes a named `entities` export, from another file when asked', async () => {
    await write('src/agents.ts', "export const entities = { notes: { model: 'Note', ownerField: 'authorId' } }\n")
    expect(await loadDeclarations(app, 'src/agents.ts')).toEqual({ notes: { model: 'Note', ownerField: 'authorId' } })
  })

  it('reads the file again on every call, so a long-running process sees edits', async () => {
    await write('src/entities.ts', "export default { a: { model: 'A' } }\n")
    await loadDeclarations(app)
    await write('src/entities.ts', "export default { b: { model: 'B' } }\n")
    expect(await loadDeclarations(app)).toEqual({ b: { model: 'B' } })
  })

  it('names the file and the fix when the file is missing', async () => {
    const error = await loadDeclarations(app).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(GeneratorError)
    expect((error as GeneratorError).file).toBe('src/entities.ts')
    expect((error as Error).message).toBe(
      "src/entities.ts: not found; create it with `export default defineEntities({ invoices: { model: 'Invoice', ownerField: 'userId' } })`, or pass its path with --entities",
    )
  })

  it('names the file and the fix when it exports no declarations', async () => {
    await write('src/entities.ts', 'export const other = 1\n')
    await expect(loadDeclarations(app)).rejects.toThrow('src/entities.ts: exports no entity declarations; add `export default defineEntities(')
  })

  it('names the file when importing it fails', async () => {
    await write('src/entities.ts', "throw new Error('boom')\n")
    await expect(loadDeclarations(app)).rejects.toThrow('src/entities.ts: importing it failed; fix the error, then generate again.\nboom')
  })
})
