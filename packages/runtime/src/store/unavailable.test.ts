import { DriverAdapterError } from '@prisma/driver-adapter-utils'
import Database from 'better-sqlite3'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { isStoreUnavailable } from './unavailable.js'

/** A server error as node-postgres raises it. */
const serverError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, 0, 'error'), { code })

describe('isStoreUnavailable', () => {
  it.each([
    ['57P01 admin shutdown', serverError('57P01', 'terminating connection due to administrator command')],
    ['class 08', serverError('08006', 'connection failure')],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ["node-postgres's dropped connection", new Error('Connection terminated unexpectedly')],
    ['a database closed to connections', serverError('55000', 'database "app" is not currently accepting connections')],
    // @prisma/adapter-pg throws this class (from its dependency @prisma/driver-adapter-utils); the storm's one -32603 on PrismaStore: the adapter's error carries the kind as a plain object.
    ["@prisma/adapter-pg's ConnectionClosed", new DriverAdapterError({ kind: 'ConnectionClosed' })],
    ["Prisma's P1001", Object.assign(new Error("Can't reach database server"), { code: 'P1001' })],
    ['SQLITE_BUSY', new Database.SqliteError('database is locked', 'SQLITE_BUSY')],
    ["SQLITE_BUSY through Prisma's adapter", Object.assign(new Error('busy'), { cause: { originalCode: 'SQLITE_BUSY' } })],
  ])('takes %s for a database out of reach: the request may be sent again', (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(true)
  })

  it.each([
    ['a syntax error', serverError('42601', 'syntax error')],
    ['a unique violation', serverError('23505', 'duplicate key value')],
    ['a constraint of the adapter', new DriverAdapterError({ kind: 'UniqueConstraintViolation', constraint: { fields: ['id'] } })],
    ['a plain bug', new TypeError('x is undefined')],
    ['not an error at all', 'ECONNRESET'],
  ])('does not take %s for one', (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(false)
  })
})
