/**
 * Prettier over the generated input types, every entity's in one pass: its fixed cost per call
 * (mostly setting up the TypeScript parser) dominated a run when each entity paid it. Prettier
 * lays out top-level declarations one by one, so each block comes out as it would alone.
 * @module
 */
import * as prettier from 'prettier'

// A line of its own between blocks; no generated type has a line comment.
const SEPARATOR = '// @a2a-types-block'

/** Each block formatted, in order, without trailing whitespace. */
export async function formatTypeBlocks(blocks: readonly string[]): Promise<string[]> {
  if (blocks.length === 0) return []
  const joined = blocks.join(`\n\n${SEPARATOR}\n\n`)
  const formatted = await prettier.format(joined, { parser: 'typescript', semi: false, singleQuote: true, printWidth: 100, trailingComma: 'all' })
  const parts = formatted.split(new RegExp(`^${SEPARATOR}$`, 'm')).map((part) => part.trim())
  if (parts.length !== blocks.length) throw new Error(`formatting ${blocks.length} type blocks gave ${parts.length}`)
  return parts
}
