import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GeneratorError } from '../errors.js'
import { DATASOURCE, INVOICE_SCHEMA } from '../testing.js'
import { readPrismaSchema } from './prisma-schema.js'

let app: string
beforeEach(async () => {
  app = await mkdtemp(join(tmpdir(), 'a2a-schema-'))
  await mkdir(join(app, 'prisma'))
})
afterEach(() => rm(app, { recursive: true, force: true }))

describe('readPrismaSchema', () => {
  it('reads a folder of .prisma files as one schema, with /// documentation', async () => {
    await writeFile(join(app, 'prisma/schema.prisma'), INVOICE_SCHEMA)
    await mkdir(join(app, 'prisma/more'))
    await writeFile(join(app, 'prisma/more/notes.prisma'), 'model Note {\n  id Int @id\n  /// What it says\n  text String\n}\n')
    const { files, datamodel } = await readPrismaSchema(app, 'prisma')
    expect(files).toEqual(['prisma/more/notes.prisma', 'prisma/schema.prisma'])
    // Files in path order, models in file order: the same schema always reads the same.
    expect(datamodel.models.map((model) => model.name)).toEqual(['Note', 'User', 'Invoice'])
    expect(datamodel.models[2]!.documentation).toBe('A bill sent to a customer')
    expect(datamodel.models[0]!.fields[1]).toMatchObject({ name: 'text', documentation: 'What it says' })
  })

  it('reads a single schema file', async () => {
    await writeFile(join(app, 'prisma/schema.prisma'), INVOICE_SCHEMA)
    const { files } = await readPrismaSchema(app, 'prisma/schema.prisma')
    expect(files).toEqual(['prisma/schema.prisma'])
  })

  it("reports an invalid schema with the file and Prisma's own message", async () => {
    await writeFile(join(app, 'prisma/schema.prisma'), `${DATASOURCE}\nmodel Invoice {\n  id String @id\n  total Money\n}\n`)
    const error = await readPrismaSchema(app, 'prisma').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(GeneratorError)
    expect((error as GeneratorError).file).toBe('prisma')
    expect((error as Error).message).toMatch(/^prisma: the Prisma schema does not validate; fix it, then generate again\.\n/)
    expect((error as Error).message).toContain('Type "Money" is neither a built-in type, nor refers to another model')
    expect((error as Error).message).toContain('prisma/schema.prisma:8')
  })

  it('reports a missing schema and an empty folder with the fix', async () => {
    await expect(readPrismaSchema(app, 'db/schema.prisma')).rejects.toThrow('db/schema.prisma: no Prisma schema there; create it, or pass the schema file or folder with --schema')
    await expect(readPrismaSchema(app, 'prisma')).rejects.toThrow('prisma: the folder holds no .prisma files')
  })
})
