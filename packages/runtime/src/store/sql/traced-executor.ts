/**
 * A store's statements as client spans (`db.system`, the parameterised statement, never its
 * values), one per statement, batch or transaction, under the request or run that sent them.
 * Nothing is started when no span records (trace/tracing.ts).
 * @module
 */
import { childSpan, SpanKind } from '../../trace/tracing.js'
import type { Executor, Run, Steps } from './executor.js'
import type { Sql } from './sql.js'

/** `inner` with a span around each call, for the database `system` (`sqlite`, `postgresql`). */
export function tracedExecutor(inner: Executor, system: string): Executor {
  const span = <T>(operation: string, text: string, work: () => Promise<T>) =>
    childSpan(`${operation} ${system}`, { 'db.system': system, 'db.operation.name': operation, 'db.query.text': text }, work, SpanKind.CLIENT)
  const traced: Executor = {
    dialect: inner.dialect,
    query: <Row>(statement: Sql, run?: Run) => span(verb(statement), statement.sql, () => inner.query<Row>(statement, run)),
    execute: (statement, run) => span(verb(statement), statement.sql, () => inner.execute(statement, run)),
    batch: (statements, run) => span('BATCH', texts(statements), () => inner.batch(statements, run)),
    batchThenRead: <Row>(statements: readonly Sql[], run?: Run) => span('BATCH', texts(statements), () => inner.batchThenRead<Row>(statements, run)),
    transaction: <R>(steps: () => Steps<R>) => span('TRANSACTION', '', () => inner.transaction(steps)),
  }
  if (inner.lostConnection) traced.lostConnection = (error) => inner.lostConnection!(error)
  return traced
}

const verb = (statement: Sql): string => /^\s*(\w+)/.exec(statement.sql)?.[1]?.toUpperCase() ?? 'SQL'

const texts = (statements: readonly Sql[]): string => statements.map((statement) => statement.sql).join(';\n')
