import { ToolError } from '@a2a-agent/runtime'
import { describe, expect, it } from 'vitest'
import { databaseRefusal, type RefusalContext } from './__fixture__/src/a2a/refusals.gen.js'

// The generated refusal mapping (the golden copy of templates/entity/refusals.gen.ts.hbs) on the
// errors Prisma throws through each database's driver adapter when a foreign key names no row.
const item: RefusalContext = {
  singular: 'item',
  fields: { id: 'id', product_id: 'productId', bin_warehouse_id: 'binWarehouseId', binCode: 'binCode', ownerId: 'ownerId' },
  indexes: {
    items_product_id_fkey: ['productId'],
    items_bin_warehouse_id_binCode_fkey: ['binWarehouseId', 'binCode'],
  },
  keys: ['ownerId'],
  references: [
    { name: 'productId', fields: ['productId'], names: 'product' },
    { name: 'bin', fields: ['binWarehouseId', 'binCode'], names: 'bin' },
  ],
}

/** A P2003 as Prisma's client raises it from a driver adapter's constraint. */
const foreignKeyError = (constraint: Record<string, unknown>) =>
  Object.assign(new Error('Foreign key constraint violated'), {
    code: 'P2003',
    meta: { modelName: 'Item', driverAdapterError: { cause: { kind: 'ForeignKeyConstraintViolation', constraint } } },
  })

const message = (error: unknown) => {
  expect(error).toBeInstanceOf(ToolError)
  return (error as Error).message
}

describe('databaseRefusal of a key that names no row', () => {
  const sent = { productId: 7, binWarehouseId: 'w1', binCode: 'A-01' }
  const bin = 'bin: bin (binWarehouseId "w1", binCode "A-01") not found'

  it('names a key of several columns by its relation and fields on PostgreSQL (the constraint by name)', () => {
    expect(message(databaseRefusal(foreignKeyError({ index: 'items_bin_warehouse_id_binCode_fkey' }), sent, item, 'create'))).toBe(bin)
    expect(message(databaseRefusal(foreignKeyError({ index: 'items_product_id_fkey' }), sent, item, 'create'))).toBe('productId: product 7 not found')
  })

  it("on MySQL and MariaDB (the constraint's first column)", () => {
    expect(message(databaseRefusal(foreignKeyError({ fields: ['bin_warehouse_id'] }), sent, item, 'create'))).toBe(bin)
  })

  it('on SQLite, which names no constraint: the reference the write sent, or each it might be', () => {
    const sqlite = foreignKeyError({ foreignKey: {} })
    expect(message(databaseRefusal(sqlite, { binWarehouseId: 'w1', binCode: 'A-01' }, item, 'create'))).toBe(bin)
    expect(message(databaseRefusal(sqlite, sent, item, 'create'))).toBe('one of productId, bin (binWarehouseId, binCode) names a row that does not exist')
  })

  it('shows the fields an update sent, the others kept from the row', () => {
    expect(message(databaseRefusal(foreignKeyError({ index: 'items_bin_warehouse_id_binCode_fkey' }), { id: 3, binCode: 'B-02' }, item, 'update'))).toBe(
      'bin: bin (binCode "B-02") not found',
    )
  })
})
