// Development data: the users alice and bob, whom A2A_DEV_KEYS=alice:key-alice,bob:key-bob acts as
// (invoices and customers belong to users, so their owners must exist). Safe to run again.
import { createDb } from '../src/db.js'

const db = createDb()
for (const [id, name] of [
  ['alice', 'Alice'],
  ['bob', 'Bob'],
] as const) {
  await db.user.upsert({ where: { id }, create: { id, email: `${id}@example.com`, name }, update: {} })
}
await db.$disconnect()
console.log('Users alice and bob are in the database.')
