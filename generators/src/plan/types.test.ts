import { fileURLToPath } from 'node:url'
import * as prettier from 'prettier'
import { expect, it } from 'vitest'
import { loadDeclarations } from '../read/declarations.js'
import { readPrismaSchema } from '../read/prisma-schema.js'
import { validateEntities } from '../read/validate.js'
import { formatTypeBlocks } from './format-types.js'
import { compiledAlone, compiledTogether, inputTypes, operationsOf } from './input-types.js'

// The golden fixture app: notes and invoices, with enums, decimals, dates, optional and list fields.
const FIXTURE = fileURLToPath(new URL('./__fixture__/', import.meta.url))
const entities = async () => validateEntities(await loadDeclarations(FIXTURE), (await readPrismaSchema(FIXTURE, 'prisma')).datamodel, 'src/entities.ts')

it('compiles the input type of every operation in one go, to what compiling each alone gives', async () => {
  const operations = operationsOf(await entities())
  expect(operations.length).toBeGreaterThan(5)
  const together = await compiledTogether(operations)
  expect(together).toBeDefined()
  expect(together).toEqual(await compiledAlone(operations))
  expect(together?.[0]).toMatch(new RegExp(`^export interface ${operations[0]?.name} \\{\\n`))
})

it('groups the types by entity', async () => {
  const all = await entities()
  const types = await inputTypes(all)
  expect(types).toHaveLength(all.length)
  const names = (text: string | undefined) => [...(text ?? '').matchAll(/^export interface (\w+)/gm)].map((match) => match[1])
  expect(types.map(names)).toEqual(
    all.map((_, index) =>
      operationsOf(all)
        .filter((op) => op.entity === index)
        .map((op) => op.name),
    ),
  )
})

it('formats the blocks in one prettier pass as each would be formatted alone', async () => {
  const blocks = [...(await inputTypes(await entities())), '']
  const options = { parser: 'typescript', semi: false, singleQuote: true, printWidth: 100, trailingComma: 'all' } as const
  const alone = await Promise.all(blocks.map(async (block) => (await prettier.format(block, options)).trimEnd()))
  expect(await formatTypeBlocks(blocks)).toEqual(alone)
  expect(await formatTypeBlocks([])).toEqual([])
})
