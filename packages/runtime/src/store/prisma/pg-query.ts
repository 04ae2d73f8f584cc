/**
 * The store's statements as pg submittables of their own, lighter than pg's Query: pg copies
 * every query's config (property descriptors and all), makes a Result and an event emitter, and
 * looks up each column's type parser at every row description, ~10 µs of the server's CPU per
 * statement here. These take the statement as it is, parse rows with the parsers found at the
 * statement's first row description (a named statement's columns never change), and answer
 * rows, rowCount and command as pg's result does.
 *
 * They inherit pg's Query (its submit: Parse once per connection, Bind, Describe, Execute, Sync),
 * so pg's pipelining connections take them as its own queries.
 * @module
 */
import type { QueryConfig, QueryResult } from './pg-executor.js'

type Row = Record<string, unknown>
type Parse = (value: string) => unknown

interface Field {
  name: string
  dataTypeID: number
  format?: string
}

/** A row description's column names and parsers, and an empty row of its columns. */
interface Columns {
  names: string[]
  parsers: Parse[]
  /** Copied for each row, as pg does: rows made of one shape, not grown key by key. */
  empty: Row
}

/** What pg's Client calls on the query it runs (the submittable protocol pg-cursor uses). */
export interface Submittable {
  callback?: (error: Error | null, result?: QueryResult) => void
  submit(connection: unknown): Error | null
}

/** The part of pg's module the queries need. */
export interface PgQueryModule {
  Query: { prototype: object }
}

export const BEGIN: QueryConfig = { text: 'BEGIN', values: [] }
export const COMMIT: QueryConfig = { text: 'COMMIT', values: [] }
export const ROLLBACK: QueryConfig = { text: 'ROLLBACK', values: [] }

/** Statements whose columns are remembered, at most (names are bounded by the executor too). */
const REMEMBERED = 2000

const affected = (text: string): number | null => {
  // "INSERT 0 3", "UPDATE 2", "SELECT 5", "BEGIN": the count is the last word, when there is one.
  const space = text.lastIndexOf(' ')
  const count = space < 0 ? Number.NaN : Number(text.slice(space + 1))
  return Number.isNaN(count) ? null : count
}

/**
 * A factory of submittables for `config`s, run by pg (`client.query(it)` with a callback, or a
 * pool's `query(it)`), parsing each column with `typeParser` (the store's pool's own).
 */
export function pgQueries(pg: PgQueryModule, typeParser: (oid: number, format?: string) => Parse): (config: QueryConfig) => Submittable {
  const known = new Map<string, Columns>()
  const columnsOf = (fields: readonly Field[]): Columns => ({
    names: fields.map((field) => field.name),
    parsers: fields.map((field) => typeParser(field.dataTypeID, field.format || 'text')),
    empty: { ...Object.fromEntries(fields.map((field) => [field.name, null])) },
  })

  interface Statement extends Submittable {
    text: string
    name: string | undefined
    values: unknown[]
    portal: string
    columns: Columns | undefined
    rows: undefined
    found: Row[]
    rowCount: number | null
    command: string | null
    failed: Error | undefined
    handleError(error: Error): void
  }

  // A constructor of its own (not pg's, which copies the config), instances of pg's Query all the same.
  function Statement(this: Statement, config: QueryConfig) {
    this.text = config.text
    this.name = config.name
    this.values = config.values
    this.portal = ''
    this.rows = undefined
    this.callback = undefined
    this.columns = undefined
    this.found = []
    this.rowCount = null
    this.command = null
    this.failed = undefined
  }
  Statement.prototype = Object.create(pg.Query.prototype, {
    handleRowDescription: {
      value(this: Statement, message: { fields: Field[] }) {
        if (this.name === undefined) return void (this.columns = columnsOf(message.fields))
        let columns = known.get(this.name)
        if (columns === undefined) {
          columns = columnsOf(message.fields)
          if (known.size < REMEMBERED) known.set(this.name, columns)
        }
        this.columns = columns
      },
    },
    handleDataRow: {
      value(this: Statement, message: { fields: (string | null)[] }) {
        if (this.failed) return
        const { names, parsers, empty } = this.columns!
        const row: Row = { ...empty }
        try {
          for (let i = 0; i < names.length; i++) {
            const value = message.fields[i]
            row[names[i]!] = value === null || value === undefined ? null : parsers[i]!(value)
          }
        } catch (error) {
          this.failed = error as Error
          return
        }
        this.found.push(row)
      },
    },
    handleCommandComplete: {
      value(this: Statement, message: { text: string }) {
        const space = message.text.indexOf(' ')
        this.command = space < 0 ? message.text : message.text.slice(0, space)
        this.rowCount = affected(message.text)
      },
    },
    handleEmptyQuery: { value() {} },
    handleError: {
      value(this: Statement, error: Error) {
        const [failed, callback] = [this.failed ?? error, this.callback]
        this.failed = this.callback = undefined
        callback?.(failed)
      },
    },
    handleReadyForQuery: {
      value(this: Statement) {
        if (this.failed) return this.handleError(this.failed)
        const callback = this.callback
        this.callback = undefined
        callback?.(null, { rows: this.found, rowCount: this.rowCount, command: this.command })
      },
    },
  })

  return (config) => new (Statement as unknown as new (config: QueryConfig) => Statement)(config)
}

/** Runs `query` on `client` (a pg Client, or anything taking a submittable with its callback). */
export function run(client: { query(query: Submittable): unknown }, query: Submittable): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    query.callback = (error, result) => (error ? reject(error) : resolve(result!))
    client.query(query)
  })
}
