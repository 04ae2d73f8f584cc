import { createHash } from 'node:crypto'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { a2aInInvoices as a2a, migratedInvoicesDb } from './invoices-app.js'

describe('a2a keys', () => {
  let database: ReturnType<typeof migratedInvoicesDb>
  let file: string
  beforeAll(() => {
    // Keys act as owners: the invoices' owner model is User.
    database = migratedInvoicesDb('a2a-keys-', (sqlite) => {
      for (const id of ['alice', 'bob']) sqlite.prepare('INSERT INTO "User" ("id", "email", "name") VALUES (?, ?, ?)').run(id, `${id}@example.com`, id)
    })
    file = database.file
  })
  afterAll(() => database?.remove())

  const rows = () => {
    const sqlite = new Database(file, { readonly: true })
    try {
      return sqlite.prepare('SELECT * FROM "A2AApiKey" ORDER BY "createdAt", "id"').all() as Array<Record<string, unknown>>
    } finally {
      sqlite.close()
    }
  }

  it('create prints the key once, on stdout alone, and stores only its hash', async () => {
    const created = await a2a('keys', 'create', '--user', 'alice', '--scopes', 'write, read', '--tenant', 'acme')
    expect(created.code).toBe(0)
    const key = created.stdout.trim()
    expect(created.stdout).toMatch(/^a2a_[A-Za-z0-9_-]{43}\n$/)
    expect(created.stderr).toMatch(/^Created API key \S+ for alice in tenant acme \(scopes read write\)\.\n/)
    expect(created.stderr).toContain('cannot be shown again')
    const [row] = rows()
    expect(row).toMatchObject({ owner: 'alice', tenant: 'acme', scopes: 'read write', prefix: key.slice(0, 12), revokedAt: null })
    expect(row!.hash).toBe(createHash('sha256').update(key).digest('hex'))
    expect(JSON.stringify(rows())).not.toContain(key)
  })

  it('list shows ids, prefixes and status, never keys; revoke marks the key revoked', async () => {
    const full = await a2a('keys', 'create', '--user', 'bob')
    expect(full.stderr).toContain('for bob (all scopes)')
    const [alices, bobs] = rows()
    const listed = await a2a('keys', 'list')
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +KEY +USER +TENANT +SCOPES +CREATED +LAST USED +STATUS$/)
    expect(lines.slice(1)).toHaveLength(2)
    expect(lines[1]).toMatch(new RegExp(`^${alices!.id} +${alices!.prefix}… +alice +acme +read write +\\S+ +never +active$`))
    expect(lines[2]).toMatch(new RegExp(`^${bobs!.id} +${bobs!.prefix}… +bob +- +\\(all\\) `))
    expect(listed.stdout).not.toContain(full.stdout.trim())

    const onlyBob = await a2a('keys', 'list', '--user', 'bob')
    expect(onlyBob.stdout.trimEnd().split('\n')).toHaveLength(2)
    expect((await a2a('keys', 'list', '--user', 'carol')).stdout).toBe('No API keys.\n')

    const revoked = await a2a('keys', 'revoke', bobs!.id as string)
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked API key ${bobs!.id} \\(${bobs!.prefix}…, user bob\\)`))
    expect(rows()[1]!.revokedAt).not.toBeNull()
    expect((await a2a('keys', 'list', '--user', 'bob')).stdout).toMatch(/ revoked \S+\n$/)
  })

  it('create refuses a user that is no row of the owner model, unless --force', async () => {
    const before = rows().length
    const refused = await a2a('keys', 'create', '--user', 'carol')
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'a2a: --user carol: no User.id is "carol"; keys act as an existing owner. Create that row first (npm run db:seed adds the development users), or pass --force to create the key anyway\n',
    })
    expect(rows()).toHaveLength(before)
    const forced = await a2a('keys', 'create', '--user', 'carol', '--force')
    expect(forced.code, forced.stderr).toBe(0)
    expect(rows().at(-1)).toMatchObject({ owner: 'carol' })
    await a2a('keys', 'revoke', rows().at(-1)!.id as string)
  })

  it('reports mistakes in one line with exit code 1', async () => {
    expect(await a2a('keys', 'revoke', 'nope')).toMatchObject({ code: 1, stderr: 'a2a: no API key nope; `a2a keys list` shows the ids\n' })
    expect(await a2a('keys', 'create')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^a2a: Missing required argument: user\nRun `a2a keys create --help`/) })
    expect(await a2a('keys', 'create', '--user', 'alice', '--scopes', ',')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^a2a: --scopes names no scope/) })
    expect(await a2a('keys', 'list', '--app', 'missing')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^a2a: missing\/src\/db.ts: not found/) })
    expect(await a2a('keys')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^a2a: Name what to do with keys/) })
  })

  it('says when the database has no key table', async () => {
    const empty = join(dirname(file), 'empty.db')
    new Database(empty).close()
    process.env.DATABASE_URL = `file:${empty}`
    try {
      const listed = await a2a('keys', 'list')
      expect(listed.code).toBe(1)
      expect(listed.stderr).toMatch(/^a2a: the database refused: The table `main.A2AApiKey` does not exist in the current database.\n/)
      expect(listed.stderr).toContain('migrations applied?')
    } finally {
      process.env.DATABASE_URL = `file:${file}`
    }
  })
})
