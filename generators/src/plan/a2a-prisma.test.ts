import { readFile } from 'node:fs/promises'
import wasm from '@prisma/prisma-schema-wasm/src/prisma_schema_build.js'
import { describe, expect, it } from 'vitest'
import { parseSchema } from '../read/prisma-schema.js'
import { DATASOURCE } from '../testing.js'
import { planFrom } from './plan.js'

const a2aPrisma = async () => (await planFrom([])).files.find((file) => file.path === 'prisma/a2a.prisma')!.content

describe('prisma/a2a.prisma', () => {
  it('holds every TaskRecord and PushConfigRecord column, the kept events, the message index, the API keys, the limit entries, the artifact files and the inbox sign-in tokens, and parses beside a SQLite schema (Json included)', async () => {
    const { models } = parseSchema(
      [
        ['prisma/schema.prisma', DATASOURCE],
        ['prisma/a2a.prisma', await a2aPrisma()],
      ],
      'prisma',
    )
    const columns = Object.fromEntries(models.map((model) => [model.name, model.fields.map((field) => `${field.name}:${field.type}${field.isRequired ? '' : '?'}`)]))
    expect(columns).toEqual({
      A2ATask: [
        'id:String',
        'contextId:String',
        'owner:String',
        'tenant:String?',
        'scope:String?',
        'skill:String',
        'version:Int',
        'task:Json',
        'messageIds:Json',
        'repliedWithMessage:Boolean?',
        'createdAt:DateTime',
        'updatedAt:DateTime',
        'statusState:String',
        'statusTime:DateTime',
        'runner:String?',
        'leaseUntil:DateTime?',
      ],
      A2ATaskEvent: ['taskId:String', 'version:Int', 'owner:String', 'event:Json', 'createdAt:DateTime'],
      A2ATaskMessage: ['owner:String', 'messageId:String', 'taskId:String'],
      A2APushConfig: ['taskId:String', 'id:String', 'owner:String', 'url:String', 'token:String?', 'authentication:Json?', 'createdAt:DateTime'],
      A2AApiKey: [
        'id:String',
        'hash:String',
        'prefix:String',
        'owner:String',
        'tenant:String?',
        'scopes:String?',
        'createdAt:DateTime',
        'lastUsedAt:DateTime?',
        'revokedAt:DateTime?',
      ],
      A2ALimitEntry: ['key:String', 'id:String', 'createdAt:DateTime', 'expiresAt:DateTime'],
      A2AArtifactFile: ['taskId:String', 'id:String', 'owner:String', 'mediaType:String', 'filename:String?', 'bytes:Bytes', 'createdAt:DateTime'],
      A2AInboxToken: ['hash:String', 'kind:String', 'owner:String', 'tenant:String?', 'createdAt:DateTime', 'expiresAt:DateTime', 'usedAt:DateTime?'],
    })
    const keys = Object.fromEntries(models.map((model) => [model.name, model.primaryKey?.fields]))
    // findByMessageId reads the (owner, messageId) prefix of A2ATaskMessage's key.
    expect(keys).toEqual({
      A2ATask: undefined,
      A2ATaskEvent: ['taskId', 'version'],
      A2ATaskMessage: ['owner', 'messageId', 'taskId'],
      A2APushConfig: ['taskId', 'id'],
      A2AApiKey: undefined,
      A2ALimitEntry: ['key', 'id'],
      A2AArtifactFile: ['taskId', 'id'],
      A2AInboxToken: undefined,
    })
  })

  it('is already as `prisma format` writes it', async () => {
    const text = await a2aPrisma()
    const files = [
      ['prisma/schema.prisma', DATASOURCE],
      ['prisma/a2a.prisma', text],
    ]
    const params = { textDocument: { uri: 'file:/prisma/a2a.prisma' }, options: { tabSize: 2, insertSpaces: true } }
    const formatted = JSON.parse(wasm.format(JSON.stringify(files), JSON.stringify(params))) as [string, string][]
    expect(formatted.find(([path]) => path === 'prisma/a2a.prisma')?.[1]).toBe(text)
  })

  it('leaves the datasource and generator blocks to the app', async () => {
    expect(await a2aPrisma()).not.toMatch(/^(datasource|generator) /m)
  })

  it("is the model set the runtime's PrismaStore is tested on (`npm run generate:fixtures -w packages/runtime` copies it)", async () => {
    const text = await a2aPrisma()
    for (const provider of ['sqlite', 'postgres']) {
      const fixture = new URL(`../../../packages/runtime/src/store/prisma/__fixture__/${provider}/a2a.prisma`, import.meta.url)
      expect(await readFile(fixture, 'utf8'), provider).toBe(text)
    }
  })
})
