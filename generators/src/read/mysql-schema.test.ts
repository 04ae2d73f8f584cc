import wasm from '@prisma/prisma-schema-wasm/src/prisma_schema_build.js'
import { describe, expect, it } from 'vitest'
import { DEFAULT_OPTIONS, planFrom } from '../plan/plan.js'
import { DATASOURCE, resolve } from '../testing.js'
import { datasourceProvider, parseSchema } from './prisma-schema.js'

/** A MySQL schema as a MySQL team writes it: native types, a full-text index, index prefix lengths. */
const MYSQL_SCHEMA = `generator client {
  provider        = "prisma-client"
  output          = "../src/generated/prisma"
  previewFeatures = ["fullTextIndex"]
}

datasource db {
  provider = "mysql"
  url      = env("DATABASE_URL")
}

model User {
  id       String    @id @default(uuid())
  email    String    @unique @db.VarChar(191)
  articles Article[]
}

/// A published article
model Article {
  id       String  @id @default(uuid())
  /// The headline
  title    String  @db.VarChar(120)
  code     String  @db.Char(8)
  body     String  @db.LongText
  summary  String  @db.Text
  notes    String? @db.MediumText
  slug     String  @db.VarChar(500)
  rating   Int     @db.TinyInt
  views    Int     @db.UnsignedSmallInt
  user     User    @relation(fields: [userId], references: [id])
  userId   String

  @@unique([slug(length: 100), userId])
  @@index([summary(length: 50)])
  @@fulltext([title, body])
}
`

const articles = { articles: { model: 'Article', ownerField: 'userId' } }

describe('a MySQL schema', () => {
  it('reads native string lengths as maxLength, the TEXT types as unbounded, and MySQL integer ranges', () => {
    const [entity] = resolve(MYSQL_SCHEMA, articles)
    const schemas = Object.fromEntries(entity!.fields.map((field) => [field.name, field.schema]))
    expect(schemas.title).toEqual({ type: 'string', maxLength: 120, description: 'The headline' })
    expect(schemas.code).toEqual({ type: 'string', maxLength: 8 })
    expect(schemas.slug).toEqual({ type: 'string', maxLength: 500 })
    expect(schemas.body).toEqual({ type: 'string' })
    expect(schemas.summary).toEqual({ type: 'string' })
    expect(schemas.notes).toEqual({ type: ['string', 'null'] })
    expect(schemas.rating).toEqual({ type: 'integer', minimum: -128, maximum: 127 })
    expect(schemas.views).toEqual({ type: 'integer', minimum: 0, maximum: 65535 })
  })

  it('ignores @@fulltext with a note, and accepts index length: arguments', () => {
    const [entity] = resolve(MYSQL_SCHEMA, articles)
    expect(entity!.notes).toContain('the @@fulltext index on title, body is ignored: list filters by equality, never by full-text search')
    const { indexes } = parseSchema([['prisma/schema.prisma', MYSQL_SCHEMA]], 'prisma')
    expect(indexes?.find((index) => index.model === 'Article' && index.type === 'unique')?.fields).toEqual([{ name: 'slug', length: 100 }, { name: 'userId' }])
  })

  it('plans the entity and an a2a.prisma with MySQL column types that validates beside the MySQL datasource, as prisma format writes it', async () => {
    expect(datasourceProvider([['prisma/schema.prisma', MYSQL_SCHEMA]])).toBe('mysql')
    const plan = await planFrom(resolve(MYSQL_SCHEMA, articles), { ...DEFAULT_OPTIONS, provider: 'mysql' })
    expect(plan.notes).toContain('articles: the @@fulltext index on title, body is ignored: list filters by equality, never by full-text search')
    const a2a = plan.files.find((file) => file.path === 'prisma/a2a.prisma')!.content
    const files: [string, string][] = [
      ['prisma/schema.prisma', MYSQL_SCHEMA],
      ['prisma/a2a.prisma', a2a],
    ]
    const { models } = parseSchema(files, 'prisma')
    // A webhook's URL or token may pass MySQL's VARCHAR(191), the String default there.
    const push = models.find((model) => model.name === 'A2APushConfig')!.fields
    expect(push.filter((field) => field.nativeType?.[0] === 'Text').map((field) => field.name)).toEqual(['url', 'token'])
    const params = { textDocument: { uri: 'file:/prisma/a2a.prisma' }, options: { tabSize: 2, insertSpaces: true } }
    const formatted = JSON.parse(wasm.format(JSON.stringify(files), JSON.stringify(params))) as [string, string][]
    expect(formatted.find(([path]) => path === 'prisma/a2a.prisma')?.[1]).toBe(a2a)
  })

  it('keeps a2a.prisma free of MySQL types on the other databases', async () => {
    expect(datasourceProvider([['prisma/schema.prisma', DATASOURCE]])).toBe('sqlite')
    const a2a = (await planFrom([])).files.find((file) => file.path === 'prisma/a2a.prisma')!.content
    expect(a2a).not.toContain('@db.')
  })
})
