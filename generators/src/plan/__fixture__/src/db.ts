/**
 * The fixture app's database: an in-memory stand-in for its PrismaClient. It has the delegate
 * methods generated code calls, typed the way Prisma types them (inputs take `Date | string`,
 * Decimals take strings), so the golden files type-check and their generated tests run without a
 * database engine. Models mirror prisma/schema.prisma.
 * @module
 */
import { randomUUID } from 'node:crypto'

/** Prisma's Decimal, as far as the fixture needs it: exact digits, printed without an exponent. */
export class Decimal {
  readonly digits: string
  constructor(value: string | number) {
    const text = String(value)
    // 12.340 and 12.34 are one value: drop a fraction's trailing zeros (and a bare point).
    this.digits = text.includes('.') ? text.replace(/\.?0+$/, '') : text
  }
  toFixed(): string {
    return this.digits
  }
}

export type InvoiceStatus = 'DRAFT' | 'SENT' | 'VOID'

export interface Invoice {
  id: string
  number: string
  total: Decimal
  currency: string
  dueAt: Date | null
  status: InvoiceStatus
  paid: boolean
  note: string | null
  userId: string
  orgId: string | null
  createdAt: Date
  updatedAt: Date
}

export interface Note {
  id: number
  title: string
  body: string | null
  views: bigint
  attachment: Uint8Array | null
  authorId: number
  createdAt: Date
}

type DecimalInput = Decimal | number | string
type DateInput = Date | string

interface InvoiceData {
  id?: string
  number: string
  total: DecimalInput
  currency?: string
  dueAt?: DateInput | null
  status?: InvoiceStatus
  paid?: boolean
  note?: string | null
  userId: string
  orgId?: string | null
  createdAt?: DateInput
  updatedAt?: DateInput
}

interface NoteData {
  id?: number
  title: string
  body?: string | null
  views?: bigint | number
  attachment?: Uint8Array | null
  authorId: number
  createdAt?: DateInput
}

type Where<Data> = { [K in keyof Data]?: Data[K] | null }
type OrderBy<Row> = { [K in keyof Row]?: 'asc' | 'desc' }

interface FindManyArgs<Row, Data> {
  where?: Where<Data>
  orderBy?: OrderBy<Row> | OrderBy<Row>[]
  skip?: number
  take?: number
}

interface Delegate<Row extends { id: unknown }, Data> {
  findMany(args: FindManyArgs<Row, Data>): Promise<Row[]>
  count(args: { where?: Where<Data> }): Promise<number>
  findFirst(args: { where?: Where<Data> }): Promise<Row | null>
  create(args: { data: Data }): Promise<Row>
  update(args: { where: { id: Row['id'] }; data: Partial<Data> }): Promise<Row>
  delete(args: { where: { id: Row['id'] } }): Promise<Row>
}

/** An A2AApiKey row (prisma/a2a.prisma), as the runtime's API key functions write and read it. */
export interface ApiKey {
  id: string
  hash: string
  prefix: string
  owner: string
  tenant: string | null
  scopes: string | null
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

/** The A2AApiKey delegate: createApiKey creates, apiKeyResolver touches lastUsedAt; nothing else is kept up. */
interface ApiKeyDelegate {
  create(args: { data: ApiKey }): Promise<ApiKey>
  updateMany(args: { where: { id: string }; data: { lastUsedAt: Date } }): Promise<{ count: number }>
  findUnique(args: unknown): Promise<ApiKey | null>
  findMany(args: unknown): Promise<ApiKey[]>
  count(args: unknown): Promise<number>
  createMany(args: unknown): Promise<{ count: number }>
  deleteMany(args: unknown): Promise<{ count: number }>
}

export interface Db {
  user: { upsert(args: { where: { id: string }; update: object; create: { id: string } }): Promise<{ id: string }> }
  invoice: Delegate<Invoice, InvoiceData>
  note: Delegate<Note, NoteData>
  a2AApiKey: ApiKeyDelegate
  /** The provider a Prisma client names; the runtime renders its raw SQL in that database's dialect. */
  readonly _activeProvider: 'sqlite'
  /** Answers the one raw statement the runtime sends here: apiKeyResolver's lookup of a key by its hash. */
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): Promise<T>
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number>
  $disconnect(): Promise<void>
}

export function createDb(): Db {
  let noteIds = 0
  const users = new Set<string>()
  const keys = new Map<string, ApiKey>()
  return {
    user: {
      async upsert({ create }) {
        users.add(create.id)
        return { id: create.id }
      },
    },
    invoice: table<Invoice, InvoiceData>(['number'], (data, old) => ({
      id: data.id ?? old?.id ?? randomUUID(),
      number: data.number ?? old!.number,
      total: data.total === undefined ? old!.total : new Decimal(String(data.total)),
      currency: data.currency ?? old?.currency ?? 'EUR',
      dueAt: data.dueAt === undefined ? (old?.dueAt ?? null) : dateOrNull(data.dueAt),
      status: data.status ?? old?.status ?? 'DRAFT',
      paid: data.paid ?? old?.paid ?? false,
      note: data.note === undefined ? (old?.note ?? null) : data.note,
      userId: data.userId ?? old!.userId,
      orgId: data.orgId === undefined ? (old?.orgId ?? null) : data.orgId,
      createdAt: old?.createdAt ?? new Date(data.createdAt ?? Date.now()),
      updatedAt: new Date(),
    })),
    note: table<Note, NoteData>([], (data, old) => ({
      id: data.id ?? old?.id ?? ++noteIds,
      title: data.title ?? old!.title,
      body: data.body === undefined ? (old?.body ?? null) : data.body,
      views: data.views === undefined ? (old?.views ?? 0n) : BigInt(data.views),
      attachment: data.attachment === undefined ? (old?.attachment ?? null) : data.attachment,
      authorId: data.authorId ?? old!.authorId,
      createdAt: old?.createdAt ?? new Date(data.createdAt ?? Date.now()),
    })),
    a2AApiKey: apiKeys(keys),
    _activeProvider: 'sqlite',
    async $queryRaw<T>(query: TemplateStringsArray, ...values: unknown[]) {
      if (!/FROM "A2AApiKey" WHERE "hash" = $/.test(query[0] ?? '')) throw new Error(`the fixture database runs no raw query but the API key lookup: ${query.join('?')}`)
      return [...keys.values()].filter((key) => key.hash === values[0]) as T
    },
    async $executeRaw(query: TemplateStringsArray) {
      throw new Error(`the fixture database runs no raw statement: ${query.join('?')}`)
    },
    async $disconnect() {},
  }
}

function apiKeys(keys: Map<string, ApiKey>): ApiKeyDelegate {
  const unused = async (): Promise<never> => {
    throw new Error('the fixture database keeps API keys only for createApiKey and apiKeyResolver')
  }
  return {
    async create({ data }) {
      keys.set(data.id, { ...data })
      return data
    },
    async updateMany({ where, data }) {
      const key = keys.get(where.id)
      if (key) key.lastUsedAt = data.lastUsedAt
      return { count: key ? 1 : 0 }
    },
    findUnique: unused,
    findMany: unused,
    count: unused,
    createMany: unused,
    deleteMany: unused,
  }
}

const uniqueViolation = (field: string) =>
  Object.assign(new Error(`Unique constraint failed on the fields: (\`${field}\`)`), { code: 'P2002', meta: { target: [field] } })

const dateOrNull = (value: DateInput | null) => (value === null ? null : new Date(value))

/**
 * One model's rows; `build` turns create or update data (over `old`) into a stored row. A write
 * repeating a `unique` field's value is refused as Prisma refuses it (P2002, the field as target).
 */
function table<Row extends { id: string | number }, Data>(unique: (keyof Row & string)[], build: (data: Partial<Data>, old?: Row) => Row): Delegate<Row, Data> {
  const rows = new Map<Row['id'], Row>()
  const matching = (where: Where<Data> = {}) =>
    [...rows.values()].filter((row) =>
      Object.entries(where).every(([key, value]) => value === undefined || same(row[key as keyof Row], value)),
    )
  const checkUnique = (row: Row) => {
    const taken = unique.find((field) => [...rows.values()].some((other) => other.id !== row.id && other[field] === row[field]))
    if (taken) throw uniqueViolation(taken)
  }
  const existing = (id: Row['id']) => {
    const row = rows.get(id)
    // What Prisma throws (P2025) when an update or delete finds no row.
    if (!row) throw new Error(`No record was found for id ${String(id)}`)
    return row
  }
  return {
    async findMany({ where, orderBy = [], skip = 0, take = Infinity }) {
      const orders = Array.isArray(orderBy) ? orderBy : [orderBy]
      return matching(where)
        .sort((a, b) => {
          for (const order of orders) {
            for (const [key, direction] of Object.entries(order)) {
              const difference = compare(a[key as keyof Row], b[key as keyof Row])
              if (difference !== 0) return direction === 'desc' ? -difference : difference
            }
          }
          return 0
        })
        .slice(skip, skip + take)
    },
    async count({ where }) {
      return matching(where).length
    },
    async findFirst({ where }) {
      return matching(where)[0] ?? null
    },
    async create({ data }) {
      const row = build(data)
      if (rows.has(row.id)) throw uniqueViolation('id')
      checkUnique(row)
      rows.set(row.id, row)
      return row
    },
    async update({ where, data }) {
      const row = build(data, existing(where.id))
      checkUnique(row)
      rows.set(row.id, row)
      return row
    },
    async delete({ where }) {
      const row = existing(where.id)
      rows.delete(where.id)
      return row
    },
  }
}

// Stored values and filter values compare in one comparable form.
function key(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null
  if (value instanceof Date) return value.getTime()
  if (value instanceof Decimal) return Number(value.digits)
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  if (typeof value === 'bigint') return Number(value)
  return value as string | number | boolean
}

function same(stored: unknown, filter: unknown): boolean {
  if (stored instanceof Date && typeof filter === 'string') return stored.getTime() === Date.parse(filter)
  if (stored instanceof Decimal && filter !== null) return stored.digits === new Decimal(String(filter)).digits
  return key(stored) === key(filter)
}

function compare(a: unknown, b: unknown): number {
  const [x, y] = [key(a), key(b)]
  if (x === y) return 0
  if (x === null) return -1
  if (y === null) return 1
  return x < y ? -1 : 1
}
