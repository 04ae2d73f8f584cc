// Development data: a User row for each owner that A2A_DEV_KEYS names (rows belong to users, so a
// caller's owner must exist). `npm run db:seed` runs it; safe to run again. This file is yours.
import { loadDotEnv, parseDevKeys } from '@a2a-agent/runtime'
import { createDb } from '../src/db.js'

loadDotEnv()
const spec = process.env.A2A_DEV_KEYS?.trim()
if (!spec) {
  console.log('A2A_DEV_KEYS is not set: no development users to add.')
} else {
  const owners = [...new Set(parseDevKeys(spec).values())]
  const db = createDb()
  for (const id of owners) {
    await db.user.upsert({ where: { id }, create: { id, email: `${id}@example.com`, name: id }, update: {} })
  }
  await db.$disconnect()
  console.log(`Development users in the database: ${owners.join(', ')}.`)
}
