/**
 * Shared by the generator's tests: a small schema and a one-call path from schema text and
 * declarations to resolved entities and a plan, without touching disk.
 * @module
 */
import { parseSchema } from './read/prisma-schema.js'
import type { ResolvedEntity } from './read/resolved.js'
import { validateEntities } from './read/validate.js'

export const DATASOURCE = `datasource db {
  provider = "sqlite"
  url      = "file:./dev.db"
}
`

/** Invoices owned by users, with docs on the model and its fields. */
export const INVOICE_SCHEMA = `${DATASOURCE}
model User {
  id       String    @id
  invoices Invoice[]
}

/// A bill sent to a customer
model Invoice {
  id        String   @id @default(uuid())
  /// Human-readable invoice number
  number    String
  total     Decimal
  paid      Boolean  @default(false)
  note      String?
  user      User     @relation(fields: [userId], references: [id])
  userId    String
  createdAt DateTime @default(now())
}
`

export const ENTITIES_FILE = 'src/entities.ts'

/** Schema text and declarations → resolved entities (throws the validation GeneratorError). */
export function resolve(schema: string, declarations: unknown): ResolvedEntity[] {
  return validateEntities(declarations, parseSchema([['prisma/schema.prisma', schema]], 'prisma/schema.prisma'), ENTITIES_FILE)
}

/** The message of the error `run` throws. */
export function errorOf(run: () => unknown): Error & { file?: string; entity?: string } {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected an error')
}
