import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaClient } from './generated/prisma/client.js'

/** The app's database client; generated entity code is typed against it. */
export type Db = PrismaClient

/** A client on `url` (a SQLite `file:` URL), through the better-sqlite3 driver adapter. */
export function createDb(url = process.env.DATABASE_URL ?? 'file:./dev.db'): Db {
  return new PrismaClient({ adapter: new PrismaBetterSQLite3({ url }) })
}
