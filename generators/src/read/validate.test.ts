import { describe, expect, it } from 'vitest'
import { GeneratorError } from '../errors.js'
import { DATASOURCE, errorOf, INVOICE_SCHEMA, resolve, STOCK_SCHEMA } from '../testing.js'

const invoices = { model: 'Invoice', ownerField: 'userId' }

/** The validation error for these declarations, checked to name the file and the entity. */
function problem(declarations: Record<string, unknown>, schema = INVOICE_SCHEMA, entity = Object.keys(declarations)[0]!) {
  const error = errorOf(() => resolve(schema, declarations))
  expect(error).toBeInstanceOf(GeneratorError)
  expect(error.file).toBe('src/entities.ts')
  expect(error.entity).toBe(entity)
  expect(error.message).toMatch(/^src\/entities\.ts: \d+ problems? in the entity declarations:\n/)
  expect(error.message).toContain(`  - ${entity}: `)
  return error.message
}

describe('validateEntities', () => {
  it('resolves an entity: names, id, owner, visible and writable fields, docs as descriptions', () => {
    const [entity] = resolve(INVOICE_SCHEMA, { invoices: { ...invoices, hidden: ['note'], readOnly: ['paid'] } })
    expect(entity).toMatchObject({
      name: 'invoices',
      model: 'Invoice',
      delegate: 'invoice',
      description: 'A bill sent to a customer',
      id: { name: 'id', type: 'String' },
      owner: { name: 'userId', type: 'String' },
      operations: ['list', 'get', 'create', 'update', 'delete'],
    })
    expect(entity!.fields.map((field) => field.name)).toEqual(['id', 'number', 'total', 'paid', 'userId', 'createdAt'])
    // Not the defaulted id, the read-only, the owner or the database-kept timestamp.
    expect(entity!.writable.map((field) => field.name)).toEqual(['number', 'total'])
    expect(entity!.fields.find((field) => field.name === 'number')!.schema).toEqual({ type: 'string', description: 'Human-readable invoice number' })
  })

  it('keeps operations in canonical order without duplicates, and prefers the declared description', () => {
    const [entity] = resolve(INVOICE_SCHEMA, { invoices: { ...invoices, operations: ['delete', 'list', 'list'], description: 'Bills' } })
    expect(entity!.operations).toEqual(['list', 'delete'])
    expect(entity!.description).toBe('Bills')
  })

  it('reports an unknown model, suggesting the closest one', () => {
    const message = problem({ invoices: { model: 'Invoce', ownerField: 'userId' } })
    expect(message).toContain('model "Invoce" is not in the Prisma schema (did you mean "Invoice"?); use one of its models')
  })

  it('lists the models when none is close', () => {
    expect(problem({ invoices: { model: 'Zebra', ownerField: 'userId' } })).toContain('use one of its models (User, Invoice)')
  })

  it('requires an owner field on an entity with tools (mcp defaults to true), hinting at the user key', () => {
    const message = problem({ invoices: { model: 'Invoice' } })
    expect(message).toContain("invoices: ownerField is missing; an entity with tools needs the field holding the owning user's id (e.g. ownerField: 'userId'), or set mcp: false")
  })

  it('needs no owner, and plans nothing, for an entity without tools', () => {
    expect(resolve(INVOICE_SCHEMA, { invoices: { model: 'Invoice', mcp: false } })).toEqual([])
  })

  it('reports an owner field that is a relation, naming its key field', () => {
    const message = problem({ invoices: { model: 'Invoice', ownerField: 'user' } })
    expect(message).toContain(`ownerField "user" is a relation, not a scalar field; name the field holding the id itself (ownerField: 'userId')`)
  })

  it('reports an unknown owner field, suggesting the closest scalar', () => {
    const message = problem({ invoices: { model: 'Invoice', ownerField: 'usrId' } })
    expect(message).toContain(`ownerField "usrId" is not a field of Invoice (did you mean "userId"?); name the scalar field holding the owner's id`)
  })

  it('reports an owner field of a type ids do not have', () => {
    const message = problem({ invoices: { model: 'Invoice', ownerField: 'createdAt' } })
    expect(message).toContain('ownerField "createdAt" is DateTime; it must be a String, Int or BigInt field holding the id')
  })

  it('resolves scopes per operation, none when undeclared, and reports a scope naming an operation the entity lacks', () => {
    const [scoped] = resolve(INVOICE_SCHEMA, { invoices: { ...invoices, scopes: { 'invoices:read': ['list', 'get'], 'invoices:write': ['create', 'update', 'delete', 'list'] } } })
    expect(scoped!.scopes).toEqual({
      list: ['invoices:read', 'invoices:write'],
      get: ['invoices:read'],
      create: ['invoices:write'],
      update: ['invoices:write'],
      delete: ['invoices:write'],
    })
    const [plain] = resolve(INVOICE_SCHEMA, { invoices })
    expect(plain!.scopes).toEqual({ list: [], get: [], create: [], update: [], delete: [] })
    expect(problem({ invoices: { ...invoices, operations: ['list'], scopes: { 'invoices:write': ['delete'] } } })).toContain(
      `scopes.invoices:write allows "delete", which is not one of this entity's operations (list); remove it`,
    )
    expect(problem({ invoices: { ...invoices, scopes: ['invoices:read'] } })).toContain('scopes must map each scope name to the operations it allows')
    expect(problem({ invoices: { ...invoices, scopes: { 'a b': ['list'], empty: [] } } })).toMatch(
      /scope name "a b" must be a non-empty name without spaces[\s\S]*scopes\.empty must list the operations it allows/,
    )
  })

  it('reports an unknown tenant field and one that is not a scalar', () => {
    expect(problem({ invoices: { ...invoices, tenantField: 'orgId' } })).toContain(`tenantField "orgId" is not a field of Invoice; name the scalar field holding the tenant's id`)
    expect(problem({ invoices: { ...invoices, tenantField: 'user' } })).toContain(
      `tenantField "user" is a relation, not a scalar field; name the field holding the id itself (tenantField: 'userId')`,
    )
  })

  it('reports an operation that is not one of the five', () => {
    const message = problem({ invoices: { ...invoices, operations: ['list', 'purge', 'updte'] } })
    expect(message).toContain('operation "purge" is not one of list, get, create, update, delete; remove it or use one of those')
    expect(message).toContain('operation "updte" is not one of list, get, create, update, delete (did you mean "update"?)')
  })

  it('reports hidden and readOnly fields that do not exist', () => {
    const message = problem({ invoices: { ...invoices, hidden: ['notes'], readOnly: ['payed'] } })
    expect(message).toContain('hidden field "notes" is not a field of Invoice (did you mean "note"?); fix the name or remove it')
    expect(message).toContain('readOnly field "payed" is not a field of Invoice (did you mean "paid"?); fix the name or remove it')
  })

  it('reports two entities whose tools collide once namespaced', () => {
    const message = problem({ billing_invoices: invoices, invoices: { ...invoices, namespace: 'billing' } }, INVOICE_SCHEMA, 'invoices')
    expect(message).toContain('invoices: "billing_invoices" already has the tool name billing_invoices_list; rename one of the two entities or give one another namespace')
  })

  it('reports two entities with one name in one namespace, whatever the case', () => {
    const message = problem({ invoices, Invoices: invoices }, INVOICE_SCHEMA, 'Invoices')
    expect(message).toContain('Invoices: "invoices" already has the tool name Invoices_list; rename one of the two entities or give one another namespace')
  })

  it('reports entity names that would become the same file or code', () => {
    const message = problem({ invoiceLines: invoices, invoice_lines: { ...invoices, namespace: 'x' } }, INVOICE_SCHEMA, 'invoice_lines')
    expect(message).toContain('invoice_lines: "invoiceLines" already has the generated file name invoice-lines.gen.ts; rename one of the two entities')
  })

  it('resolves a compound id: rows are named by its fields but the owner, which an update does not change', () => {
    const schema = `${DATASOURCE}
model Line {
  invoiceId String
  position  Int
  ownerId   String
  amount    Int
  @@id([invoiceId, position, ownerId])
}
model Grant {
  ownerId String
  orgId   String
  level   Int
  @@id([ownerId, orgId])
}
model Stamp {
  at      DateTime
  ownerId String
  @@id([ownerId, at])
}
model Tag {
  name    String @unique
  ownerId String
}
`
    const [lines, grants] = resolve(schema, {
      lines: { model: 'Line', ownerField: 'ownerId' },
      grants: { model: 'Grant', ownerField: 'ownerId', tenantField: 'orgId', operations: ['list', 'create'] },
    })
    expect(lines!.key.map((field) => field.name)).toEqual(['invoiceId', 'position'])
    expect(lines!.compoundKey).toEqual({ name: 'invoiceId_position_ownerId', fields: ['invoiceId', 'position', 'ownerId'] })
    expect(lines!.id.name).toBe('invoiceId')
    expect(lines!.writable.filter((field) => field.isId).map((field) => field.name)).toEqual(['invoiceId', 'position'])
    expect(lines!.onePerOwner).toBe(false)
    // Owner and tenant make the whole id: one row per owner in each tenant.
    expect(grants!.onePerOwner).toBe(true)
    expect(problem({ grants: { model: 'Grant', ownerField: 'ownerId', tenantField: 'orgId' } }, schema)).toContain(
      "grants: every field of Grant's compound id comes from the caller, so get, update, delete would have nothing to name a row by; keep only list and create in operations",
    )
    expect(problem({ stamps: { model: 'Stamp', ownerField: 'ownerId' } }, schema)).toContain(
      `stamps: Stamp's compound id @@id([ownerId, at]) holds "at" (DateTime); entity tools need String, Int or BigInt id fields`,
    )
    expect(problem({ tags: { model: 'Tag', ownerField: 'ownerId' } }, schema)).toContain(
      'tags: Tag has no @id field; entity tools address a row by its id, so give the model an @id (or an @@id of several fields)',
    )
  })

  it('reports a required field create cannot set', () => {
    expect(problem({ invoices: { ...invoices, hidden: ['number'] } })).toContain(
      'create cannot set "number": it is required with no default, but hidden; give it a @default, make it optional, or drop create from operations',
    )
    expect(resolve(INVOICE_SCHEMA, { invoices: { ...invoices, hidden: ['number'], operations: ['list'] } })).toHaveLength(1)
  })

  it('reports a field named like a list argument', () => {
    const schema = INVOICE_SCHEMA.replace('  paid ', '  sort      Int\n  paid ')
    expect(problem({ invoices }, schema)).toContain(`field "sort" has the name of a list argument (page, limit, sort); hide it (hidden: ['sort']) or drop list from operations`)
  })

  it("reports an entity whose files would be the generator's own", () => {
    expect(problem({ entities: invoices })).toContain('entities: its files would be named like src/a2a/entities.gen.ts, which the generator writes for itself; rename the entity')
  })

  it('reports unknown options and bad names', () => {
    const message = problem({ 'bad-name': { model: 'Invoice', ownerFeild: 'userId' } })
    expect(message).toContain('bad-name: the entity name must start with a letter')
    expect(message).toContain('unknown option "ownerFeild" (did you mean "ownerField"?)')
  })

  it('collects every problem of every entity into one error', () => {
    const error = errorOf(() => resolve(INVOICE_SCHEMA, { invoices: { model: 'Invoce' }, notes: { ...invoices, operations: ['purge'] } }))
    expect(error.message.split('\n')).toEqual([
      'src/entities.ts: 2 problems in the entity declarations:',
      '  - invoices: model "Invoce" is not in the Prisma schema (did you mean "Invoice"?); use one of its models',
      '  - notes: operation "purge" is not one of list, get, create, update, delete; remove it or use one of those',
    ])
    expect((error as GeneratorError).entity).toBeUndefined()
  })

  it('refuses declarations that are not an object of entities', () => {
    const error = errorOf(() => resolve(INVOICE_SCHEMA, [invoices]))
    expect(error.message).toContain('src/entities.ts: the entity declarations must be an object of entities')
  })
})

const TEAM_SCHEMA = `datasource db {
  provider = "postgresql"
  url      = "postgresql://localhost/x"
}
model User {
  id      String    @id @default(uuid()) @db.Uuid
  email   String    @unique
  profile Profile?
  tasks   Task[]
  zones   Zone[]
}
model Team {
  id     Int    @id @default(autoincrement())
  name   String
  tasks  Task[]
  helped Task[] @relation("helper")
}
/// A unit of work
/// @TypeGraphQL.type(name: "Job")
model Task {
  id       String  @id @db.Uuid
  /// What to do
  /// @zod.string.min(1).max(80)
  title    String  @db.VarChar(80)
  /// @zod.string.length(2) Two-letter code
  country  String  @db.Char(2)
  weight   Int     @db.SmallInt
  team     Team    @relation(fields: [teamId], references: [id])
  teamId   Int
  helper   Team?   @relation("helper", fields: [helperId], references: [id])
  helperId Int?
  owner    User    @relation(fields: [ownerId], references: [id])
  ownerId  String  @db.Uuid
  search   Unsupported("tsvector")?

  @@unique([ownerId, title])
}
model Profile {
  id     Int    @id @default(autoincrement())
  user   User   @relation(fields: [userId], references: [id])
  userId String @unique @db.Uuid
}
model Zone {
  id     Int                  @id @default(autoincrement())
  centre Unsupported("point")
  user   User                 @relation(fields: [userId], references: [id])
  userId String               @db.Uuid
}
`

describe('validateEntities on schemas it has not seen', () => {
  const tasks = { model: 'Task', ownerField: 'ownerId' }

  it('leaves a key into a model that is not an entity out of the arguments, and drops create when it is required, saying why', () => {
    const [entity] = resolve(TEAM_SCHEMA, { tasks })
    expect(entity!.writable.map((field) => field.name)).toEqual(['id', 'title', 'country', 'weight'])
    expect(entity!.operations).toEqual(['list', 'get', 'update', 'delete'])
    expect(entity!.notes).toEqual([
      '"search" is left out of the tools: agents cannot send or read its type, Unsupported("tsvector")',
      `"helperId" is left out of the tools' arguments: it references Team, which is not an entity; add it to writableReferences to let agents name any Team row`,
      `no create operation: "teamId" is a required reference to Team, which is not an entity (add it to writableReferences to let agents name any Team row)`,
    ])
  })

  it('lets the declaration open a key with writableReferences, and tells tests how to make the row it names', () => {
    const [entity] = resolve(TEAM_SCHEMA, { tasks: { ...tasks, writableReferences: ['teamId', 'helperId'] } })
    expect(entity!.writable.map((field) => field.name)).toEqual(['id', 'title', 'country', 'weight', 'teamId', 'helperId'])
    expect(entity!.operations).toContain('create')
    expect(entity!.notes).toEqual(['"search" is left out of the tools: agents cannot send or read its type, Unsupported("tsvector")'])
    expect(entity!.referenceRows).toEqual([
      { field: 'teamId', row: expect.objectContaining({ model: 'Team', table: 'Team', columns: [expect.objectContaining({ name: 'name' })] }) },
    ])
  })

  it('refuses create named in operations when a required key stays closed, and bad writableReferences', () => {
    expect(problem({ tasks: { ...tasks, operations: ['create'] } }, TEAM_SCHEMA)).toContain(
      `create cannot make a row: "teamId" is a required reference to Team, which is not an entity (add it to writableReferences to let agents name any Team row); drop create from operations`,
    )
    const message = problem({ tasks: { ...tasks, writableReferences: ['teamid', 'title'] } }, TEAM_SCHEMA)
    expect(message).toContain('writableReferences field "teamid" is not a field of Task (did you mean "teamId"?)')
    expect(message).toContain('writableReferences field "title" is not a foreign key of Task')
    expect(problem({ tasks: { ...tasks, writableReferences: ['ownerId'] }, users: { model: 'User', ownerField: 'id' } }, TEAM_SCHEMA)).toContain(
      'writableReferences field "ownerId" references User, a declared entity: agents may already set it, to one of their own rows; remove it from writableReferences',
    )
  })

  it('gives no create to a model with a required Unsupported column, and says so', () => {
    const [zone] = resolve(TEAM_SCHEMA, { zones: { model: 'Zone', ownerField: 'userId' } })
    expect(zone!.operations).toEqual(['list', 'get', 'update', 'delete'])
    expect(zone!.notes).toEqual(['no create operation: "centre" is a required Unsupported("point") column, which agents cannot send (give it a @default or make it optional)'])
    expect(problem({ zones: { model: 'Zone', ownerField: 'userId', operations: ['list', 'create'] } }, TEAM_SCHEMA)).toContain('"centre" is a required Unsupported("point") column')
    // An optional one is simply not a column agents see.
    const [task] = resolve(TEAM_SCHEMA, { tasks: { ...tasks, writableReferences: ['teamId'] } })
    expect(task!.columns.map((field) => field.name)).not.toContain('search')
  })

  it('carries what the database enforces into the argument schemas: uuid, lengths, SmallInt bounds', () => {
    const [entity] = resolve(TEAM_SCHEMA, { tasks: { ...tasks, writableReferences: ['teamId'] } })
    const schema = (name: string) => entity!.columns.find((field) => field.name === name)!.schema
    expect(schema('id')).toEqual({ type: 'string', format: 'uuid' })
    expect(schema('title')).toEqual({ type: 'string', maxLength: 80, description: 'What to do' })
    expect(schema('country')).toEqual({ type: 'string', maxLength: 2, description: 'Two-letter code' })
    expect(schema('weight')).toEqual({ type: 'integer', minimum: -32768, maximum: 32767 })
  })

  it("keeps other generators' /// annotations out of descriptions", () => {
    const [entity] = resolve(TEAM_SCHEMA, { tasks: { ...tasks, writableReferences: ['teamId'] } })
    expect(entity!.description).toBe('A unit of work')
    expect(entity!.fields.find((field) => field.name === 'title')!.documentation).toBe('What to do')
  })

  it("makes ownerField naming the id the caller's own row: get and update by default, never a create", () => {
    const [me] = resolve(TEAM_SCHEMA, { me: { model: 'User', ownerField: 'id' } })
    expect(me!.operations).toEqual(['list', 'get', 'update'])
    expect(me!.notes).toEqual([
      `no delete operation by default: it would delete the caller's own User row; list delete in operations to offer it`,
      'no create operation: each User row is its owner (ownerField "id" is the id), so the caller\'s row exists before any agent call',
    ])
    expect(problem({ me: { model: 'User', ownerField: 'id', operations: ['get', 'create'] } }, TEAM_SCHEMA)).toContain(
      `create cannot make a row: each User row is its owner (ownerField "id" is the id), so the caller's row exists before any agent call; drop create from operations`,
    )
  })

  it('knows one-row-per-owner models: an owner that is unique, or the id', () => {
    const [profiles, users, entity] = resolve(TEAM_SCHEMA, {
      profiles: { model: 'Profile', ownerField: 'userId' },
      users: { model: 'User', ownerField: 'id', operations: ['get', 'update'] },
      tasks: { ...tasks, writableReferences: ['teamId'] },
    })
    expect([profiles!.onePerOwner, users!.onePerOwner, entity!.onePerOwner]).toEqual([true, true, false])
    expect(entity!.uniqueSets).toEqual([['ownerId', 'title']])
    expect(users!.ownerModel).toMatchObject({ model: 'User', id: { name: 'id', type: 'String', uuid: true } })
    expect(profiles!.ownerModel).toMatchObject({ model: 'User', columns: [expect.objectContaining({ name: 'email', isUnique: true })] })
  })
})

const ACCOUNT_SCHEMA = `${DATASOURCE}
model User {
  id                 Int       @id @default(autoincrement())
  email              String
  password_hash      String
  passwordChangedAt  DateTime?
  twoFactorSecret    String?
  tokenCount         Int       @default(0)
  keys               ApiKey[]
}

model ApiKey {
  id        String  @id @default(cuid())
  label     String
  apiKey    String
  hash      Bytes?
  owner     User    @relation(fields: [ownerId], references: [id])
  ownerId   Int
}
`

describe('credentials', () => {
  it('hides columns named like credentials, and says so for each one', () => {
    const [me, keys] = resolve(ACCOUNT_SCHEMA, { me: { model: 'User', ownerField: 'id' }, keys: { model: 'ApiKey', ownerField: 'ownerId', operations: ['list', 'get'] } })
    expect(me!.fields.map((field) => field.name)).toEqual(['id', 'email', 'passwordChangedAt', 'tokenCount'])
    expect(me!.writable.map((field) => field.name)).not.toContain('password_hash')
    expect(me!.notes).toContain('"password_hash" is hidden: its name looks like a credential')
    expect(me!.notes).toContain('"twoFactorSecret" is hidden: its name looks like a credential')
    expect(keys!.fields.map((field) => field.name)).toEqual(['id', 'label', 'ownerId'])
    expect(keys!.notes).toEqual([
      '"apiKey" is hidden: its name looks like a credential; list it in exposed to show it to agents',
      '"hash" is hidden: its name looks like a credential; list it in exposed to show it to agents',
    ])
  })

  it('shows a credential the declaration exposes, and explains a create the hiding blocks', () => {
    const [keys] = resolve(ACCOUNT_SCHEMA, { keys: { model: 'ApiKey', ownerField: 'ownerId', exposed: ['apiKey'] } })
    expect(keys!.writable.map((field) => field.name)).toEqual(['label', 'apiKey'])
    expect(problem({ keys: { model: 'ApiKey', ownerField: 'ownerId' } }, ACCOUNT_SCHEMA)).toContain(
      'create cannot set "apiKey": it is required with no default, but hidden as a likely credential (list it in exposed to let agents send it); give it a @default',
    )
  })

  it("refuses an exposed name that is unknown, no credential, also hidden, or on the caller's own row", () => {
    const keys = { model: 'ApiKey', ownerField: 'ownerId', operations: ['list'] }
    expect(problem({ keys: { ...keys, exposed: ['apikey'] } }, ACCOUNT_SCHEMA)).toContain('exposed field "apikey" is not a field of ApiKey (did you mean "apiKey"?)')
    expect(problem({ keys: { ...keys, exposed: ['label'] } }, ACCOUNT_SCHEMA)).toContain(
      'exposed field "label" is not hidden by default (only fields named like credentials are); remove it from exposed',
    )
    expect(problem({ keys: { ...keys, hidden: ['hash'], exposed: ['hash'] } }, ACCOUNT_SCHEMA)).toContain('field "hash" is both hidden and exposed')
    expect(problem({ me: { model: 'User', ownerField: 'id', exposed: ['password_hash'] } }, ACCOUNT_SCHEMA)).toContain(
      `exposed field "password_hash" looks like a credential of the caller's own User row, which agents never see; remove it from exposed`,
    )
  })
})

describe('parents the generated tests make', () => {
  const schema = `${DATASOURCE}
model User {
  id    String @id
  polls Poll[]
  votes Vote[]
}
model Poll {
  id        Int                      @id @default(autoincrement())
  area      Unsupported("polygon")
  creator   User                     @relation(fields: [creatorId], references: [id])
  creatorId String
  votes     Vote[]
}
model Vote {
  id      Int    @id @default(autoincrement())
  poll    Poll   @relation(fields: [pollId], references: [id])
  pollId  Int
  voter   User   @relation(fields: [voterId], references: [id])
  voterId String
}
`
  it('says when a required key names an entity without create whose row cannot be made', () => {
    const [, votes] = resolve(schema, { polls: { model: 'Poll', ownerField: 'creatorId', operations: ['list', 'get'] }, votes: { model: 'Vote', ownerField: 'voterId' } })
    expect(votes!.referenceRows).toEqual([])
    expect(votes!.notes).toEqual([
      'the generated create tests need a Poll row for "pollId" and cannot make one ("area" is a required Unsupported("polygon") column of Poll, which no generic code can fill): they are skipped, saying so; declare an entity with create for Poll to test them',
    ])
    expect(votes!.createTestsBlocked).toBe(
      'the generated tests cannot make the Poll row "pollId" needs: "area" is a required Unsupported("polygon") column of Poll, which no generic code can fill',
    )
  })
})

describe('keys onto unique columns, parents that cannot be made', () => {
  const schema = `${DATASOURCE}
model User {
  id      String      @id
  products Product[]
  moves   StockMove[]
  crews   Crew[]
  jobs    Job[]
}
model Product {
  id      Int         @id @default(autoincrement())
  sku     String      @unique
  owner   User        @relation(fields: [ownerId], references: [id])
  ownerId String
  moves   StockMove[]
}
model StockMove {
  id         Int     @id @default(autoincrement())
  product    Product @relation(fields: [productSku], references: [sku])
  productSku String
  owner      User    @relation(fields: [ownerId], references: [id])
  ownerId    String
}
model Crew {
  id        Int      @id @default(autoincrement())
  foreman   Worker   @relation("foreman", fields: [foremanId], references: [id])
  foremanId Int      @unique
  workers   Worker[] @relation("members")
  owner     User     @relation(fields: [ownerId], references: [id])
  ownerId   String
  jobs      Job[]
}
model Worker {
  id      Int   @id @default(autoincrement())
  crew    Crew  @relation("members", fields: [crewId], references: [id])
  crewId  Int
  leading Crew? @relation("foreman")
}
model Job {
  id      Int    @id @default(autoincrement())
  crew    Crew   @relation(fields: [crewId], references: [id])
  crewId  Int
  owner   User   @relation(fields: [ownerId], references: [id])
  ownerId String
}
`
  const [, moves, , jobs] = resolve(schema, {
    products: { model: 'Product', ownerField: 'ownerId' },
    moves: { model: 'StockMove', ownerField: 'ownerId' },
    crews: { model: 'Crew', ownerField: 'ownerId', operations: ['list', 'get'] },
    jobs: { model: 'Job', ownerField: 'ownerId' },
  })

  it('knows the unique column a key holds when it is not the id', () => {
    expect(moves!.writable.find((field) => field.name === 'productSku')?.referencedKey).toEqual({ name: 'sku', type: 'String', uuid: false })
  })

  it('names the cycle that keeps the tests from making a parent, and skips its create tests', () => {
    expect(jobs!.createTestsBlocked).toBe('the generated tests cannot make the Crew row "crewId" needs: its required relations run in a cycle (Crew → Worker → Crew)')
  })
})

describe('keys of several columns', () => {
  const schema = STOCK_SCHEMA
  const owned = { model: 'Warehouse', ownerField: 'ownerId' }
  const entities = {
    warehouses: owned,
    bins: { model: 'Bin', ownerField: 'ownerId' },
    items: { model: 'Item', ownerField: 'ownerId' },
  }

  it("lets agents send a key into an entity, whole, to be checked as the caller's", () => {
    const [, , items] = resolve(schema, entities)
    expect(items!.writable.map((field) => field.name)).toEqual(['binWarehouseId', 'binCode', 'overflowWarehouseId', 'overflowCode'])
    expect(items!.compoundReferences).toEqual([
      { relation: 'bin', references: 'Bin', fields: ['binWarehouseId', 'binCode'], to: ['warehouseId', 'code'], isRequired: true },
      { relation: 'overflow', references: 'Bin', fields: ['overflowWarehouseId', 'overflowCode'], to: ['warehouseId', 'code'], isRequired: false },
    ])
    // Bins have create: the tests make one through it rather than in the database.
    expect(items!.compositeRows).toEqual([])
    expect(items!.createTestsBlocked).toBeUndefined()
    expect(items!.notes).toEqual([])
  })

  it('keeps a key into a model that is not an entity closed until writableReferences lists all its fields', () => {
    const [slots] = resolve(schema, { slots: { model: 'Slot', ownerField: 'ownerId' } })
    expect(slots!.writable).toEqual([])
    expect(slots!.compoundReferences).toEqual([])
    expect(slots!.operations).toEqual(['list', 'get', 'update', 'delete'])
    expect(slots!.notes).toEqual([
      `"next" (nextAisle, nextLevel) is left out of the tools' arguments: it references Rack, which is not an entity; add nextAisle and nextLevel to writableReferences to let agents name any Rack row`,
      `no create operation: "rack" (aisle, level) is a required reference to Rack, which is not an entity (add aisle and level to writableReferences to let agents name any Rack row)`,
    ])
    const [open] = resolve(schema, { slots: { model: 'Slot', ownerField: 'ownerId', writableReferences: ['aisle', 'level'] } })
    expect(open!.writable.map((field) => field.name)).toEqual(['aisle', 'level'])
    expect(open!.operations).toContain('create')
    // The tests make the row the key names, compound id and all.
    expect(open!.compositeRows).toEqual([
      {
        key: { relation: 'rack', references: 'Rack', fields: ['aisle', 'level'], to: ['aisle', 'level'], isRequired: true },
        row: expect.objectContaining({ model: 'Rack', compoundId: ['aisle', 'level'] }),
      },
    ])
    expect(open!.createTestsBlocked).toBeUndefined()
  })

  it('refuses writableReferences naming part of a key, and a key into an entity', () => {
    expect(problem({ slots: { model: 'Slot', ownerField: 'ownerId', writableReferences: ['aisle', 'nextLevel'] } }, schema)).toContain(
      'writableReferences lists aisle but not level: "rack" (aisle, level) names one Rack row by all of them; list them all or none',
    )
    expect(problem({ ...entities, items: { ...entities.items, writableReferences: ['binCode'] } }, schema, 'items')).toContain(
      'writableReferences field "binCode" references Bin, a declared entity: agents may already set it, to one of their own rows; remove it from writableReferences',
    )
  })

  it('leaves out a key agents cannot send whole, naming the field they may not set', () => {
    const [, , items] = resolve(schema, { ...entities, items: { ...entities.items, readOnly: ['overflowCode'] } })
    expect(items!.writable.map((field) => field.name)).toEqual(['binWarehouseId', 'binCode'])
    expect(items!.notes).toEqual([
      `"overflow" (overflowWarehouseId, overflowCode) is left out of the tools' arguments: agents cannot send it whole, as overflowCode is not theirs to set`,
    ])
  })

  it('checks two keys sharing a field each, and skips the create tests that would fill both', () => {
    const [, , moves] = resolve(schema, { ...entities, items: { model: 'Move', ownerField: 'ownerId' } })
    expect(moves!.compoundReferences.map((key) => key.fields)).toEqual([
      ['warehouseId', 'fromCode'],
      ['warehouseId', 'toCode'],
    ])
    expect(moves!.createTestsBlocked).toBe(
      'the generated tests cannot fill two keys that share a field: warehouseId belongs to two required keys, whose rows they make one at a time',
    )
  })
})
