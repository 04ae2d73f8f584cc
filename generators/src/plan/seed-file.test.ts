import { describe, expect, it } from 'vitest'
import { DATASOURCE, resolve } from '../testing.js'
import { DEFAULT_OPTIONS, planFrom } from './plan.js'

const withSeed = { ...DEFAULT_OPTIONS, seed: { path: 'prisma/seed.ts' } }
const seedOf = async (schema: string, declarations: Record<string, unknown>) =>
  (await planFrom(resolve(`${DATASOURCE}\n${schema}`, declarations), withSeed)).files.find((file) => file.path === 'prisma/seed.ts')

const POSTS = `model Post {
  id       Int     @id @default(autoincrement())
  title    String
  author   Account @relation(fields: [authorId], references: [uid])
  authorId Int
}
`

describe('the seed, from the owner model', () => {
  it('makes owner rows by the id the dev keys name, as the generated tests do: an Int id named uid, no email, required columns filled', async () => {
    const seed = await seedOf(
      `model Account {
  uid         Int    @id @default(autoincrement())
  handle      String @unique
  displayName String
  posts       Post[]
}
${POSTS}`,
      { posts: { model: 'Post', ownerField: 'authorId' } },
    )
    expect(seed?.ownership).toBe('user')
    expect(seed?.content).toContain("import { createDb } from '../src/db.js'")
    expect(seed?.content).toContain(`    await db.account.upsert({
      where: { uid: Number(id) },
      update: {},
      create: { uid: Number(id), handle: \`handle-\${name}\`, displayName: 'displayName 1' },
    })`)
    expect(seed?.content).toContain('const misfits = owners.filter((id) => !/^\\d+$/.test(id))')
    expect(seed?.content).not.toContain('email')
  })

  it('takes the owner names as they are for String ids, and says when there is no owner model', async () => {
    const named = await seedOf(
      `model Member {
  handle String @id
  posts  Post[]
}
model Post {
  id       String @id @default(cuid())
  author   Member @relation(fields: [authorId], references: [handle])
  authorId String
}
`,
      { posts: { model: 'Post', ownerField: 'authorId' } },
    )
    expect(named?.content).toContain('await db.member.upsert({\n      where: { handle: id },\n      update: {},\n      create: { handle: id },\n    })')
    expect(named?.content).not.toContain('misfits')
    const none = (await planFrom([], withSeed)).files.find((file) => file.path === 'prisma/seed.ts')
    expect(none?.content).toContain('No owner model in the schema')
    expect(none?.content).not.toContain('createDb')
    expect((await planFrom([])).files.map((file) => file.path)).not.toContain('prisma/seed.ts')
  })
})
