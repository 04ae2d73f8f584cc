/**
 * What {@link PrismaStore} needs of an app's Prisma client: the three delegates generated from
 * prisma/a2a.prisma (A2ATask, A2ATaskMessage, A2APushConfig) and interactive transactions. The
 * types are structural and the arguments loose on purpose: any app's generated `PrismaClient`,
 * on SQLite, PostgreSQL or MySQL and whatever its other models, is assignable without a cast.
 * @module
 */
import type { PushConfigRow, TaskMessageRow, TaskRow } from '../sql/rows.js'

export type { PushConfigRow, TaskMessageRow, TaskRow }

/**
 * A method's argument. Loose on purpose: each app's client types its arguments precisely for its
 * own schema (generic over the argument), which no narrower type here would stay assignable to.
 */
type Args = any

/** One model's delegate, as far as the store calls it. */
export interface Delegate<Row> {
  findUnique(args: Args): PromiseLike<Row | null>
  findMany(args: Args): PromiseLike<Row[]>
  count(args: Args): PromiseLike<number>
  create(args: Args): PromiseLike<unknown>
  createMany(args: Args): PromiseLike<{ count: number }>
  updateMany(args: Args): PromiseLike<{ count: number }>
  deleteMany(args: Args): PromiseLike<{ count: number }>
}

/** The task-store models' delegates: what export and erasure query (the store itself sends raw SQL). */
export interface PrismaTaskModels {
  a2ATask: Delegate<TaskRow>
  a2ATaskMessage: Delegate<TaskMessageRow>
  a2APushConfig: Delegate<PushConfigRow>
}

/** Raw statements (see raw.ts): what the store's hot paths send instead of model queries. */
export interface RawClient {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>
}

export interface PrismaTaskClient extends PrismaTaskModels, RawClient {
  /** An interactive transaction: committed when `fn` resolves, rolled back when it throws. */
  $transaction<R>(fn: (tx: PrismaTaskModels & RawClient) => Promise<R>): PromiseLike<R>
  /**
   * A batch transaction: the statements (unawaited `$queryRaw`/`$executeRaw` calls) run in order
   * in one transaction, all or none. Cheaper than an interactive one when no step decides the next.
   */
  $transaction(statements: PromiseLike<unknown>[]): PromiseLike<unknown[]>
}

/** What {@link prepareSqlite} calls: a raw query (PRAGMAs answer with a row, so not `$executeRaw`). */
export interface RawQueryClient {
  $queryRawUnsafe(query: string): PromiseLike<unknown>
}
