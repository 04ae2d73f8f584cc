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

/**
 * Keys of several columns: bins named by warehouse and code (a compound id) that items, stock and
 * moves name by two columns (a move by two keys sharing warehouseId); shelves whose id holds the
 * owner; racks, no entity anywhere, that slots name.
 */
export const STOCK_SCHEMA = `${DATASOURCE}
model User {
  id         String      @id
  warehouses Warehouse[]
  bins       Bin[]
  items      Item[]
  stock      Stock[]
  moves      Move[]
  shelves    Shelf[]
  boxes      Box[]
  slots      Slot[]
}
model Warehouse {
  id      String @id
  owner   User   @relation(fields: [ownerId], references: [id])
  ownerId String
  bins    Bin[]
}
model Bin {
  warehouse   Warehouse @relation(fields: [warehouseId], references: [id])
  warehouseId String
  code        String
  owner       User      @relation(fields: [ownerId], references: [id])
  ownerId     String
  stored      Item[]    @relation("stored")
  overflowing Item[]    @relation("overflow")
  stock       Stock[]
  movesOut    Move[]    @relation("from")
  movesIn     Move[]    @relation("to")
  @@id([warehouseId, code])
}
model Item {
  id                  Int     @id @default(autoincrement())
  bin                 Bin     @relation("stored", fields: [binWarehouseId, binCode], references: [warehouseId, code])
  binWarehouseId      String
  binCode             String
  overflow            Bin?    @relation("overflow", fields: [overflowWarehouseId, overflowCode], references: [warehouseId, code])
  overflowWarehouseId String?
  overflowCode        String?
  owner               User    @relation(fields: [ownerId], references: [id])
  ownerId             String
}
model Stock {
  warehouseId String
  sku         String
  bin         Bin    @relation(fields: [warehouseId, binCode], references: [warehouseId, code])
  binCode     String
  owner       User   @relation(fields: [ownerId], references: [id])
  ownerId     String
  @@id([warehouseId, sku])
}
model Move {
  id          Int    @id @default(autoincrement())
  warehouseId String
  from        Bin    @relation("from", fields: [warehouseId, fromCode], references: [warehouseId, code])
  fromCode    String
  to          Bin    @relation("to", fields: [warehouseId, toCode], references: [warehouseId, code])
  toCode      String
  owner       User   @relation(fields: [ownerId], references: [id])
  ownerId     String
}
model Shelf {
  owner   User   @relation(fields: [ownerId], references: [id])
  ownerId String
  code    String
  boxes   Box[]
  @@id([ownerId, code])
}
model Box {
  id        Int    @id @default(autoincrement())
  shelf     Shelf  @relation(fields: [ownerId, shelfCode], references: [ownerId, code])
  shelfCode String
  owner     User   @relation(fields: [ownerId], references: [id])
  ownerId   String
}
model Rack {
  aisle String
  level Int
  slots Slot[]
  next  Slot[] @relation("next")
  @@id([aisle, level])
}
model Slot {
  id        Int     @id @default(autoincrement())
  rack      Rack    @relation(fields: [aisle, level], references: [aisle, level])
  aisle     String
  level     Int
  next      Rack?   @relation("next", fields: [nextAisle, nextLevel], references: [aisle, level])
  nextAisle String?
  nextLevel Int?
  owner     User    @relation(fields: [ownerId], references: [id])
  ownerId   String
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
