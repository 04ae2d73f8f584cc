/**
 * PrismaStore's statements as MySQL and MariaDB run them. statements.ts writes the SQL SQLite and
 * PostgreSQL share; MySQL differs in four places, each rewritten here: identifiers are quoted with
 * backticks, `ON CONFLICT DO NOTHING` is `INSERT IGNORE`, an upsert is `ON DUPLICATE KEY UPDATE`
 * with `VALUES(col)` for `excluded.col`, and a table-less SELECT with a WHERE names `FROM DUAL`.
 * sql.ts applies it to every statement sent through a MySQL client. `UPDATE … RETURNING` has no
 * counterpart: PrismaExecutor runs the update, then reads the row back in the same transaction
 * (statements.returningParts).
 * @module
 */
import { Sql } from 'sql-template-tag'

/** Rewritten texts by original text: the statements have a few dozen shapes, each rewritten once. */
const rewritten = new Map<string, string[]>()

/** `statement` with MySQL's syntax; its values stay bound as they were. */
export function toMysql(statement: Sql): Sql {
  const key = statement.strings.join('\u0000')
  let strings = rewritten.get(key)
  if (strings === undefined) rewritten.set(key, (strings = rewrite(statement.strings)))
  return new Sql(strings, statement.values)
}

function rewrite(pieces: readonly string[]): string[] {
  // The statements quote only identifiers (every value is bound), so each `"` is an identifier's.
  let strings = pieces.map((piece) => piece.replaceAll('"', '`'))
  const last = strings.length - 1
  const ignore = /\s*ON CONFLICT(\s*\([^)]*\))? DO NOTHING\s*$/
  if (ignore.test(strings[last]!)) {
    strings[last] = strings[last]!.replace(ignore, '')
    strings[0] = strings[0]!.replace(/^(\s*)INSERT INTO/, '$1INSERT IGNORE INTO')
  }
  strings = strings.map((piece) =>
    piece
      .replace(/ON CONFLICT \([^)]*\) DO UPDATE SET/, 'ON DUPLICATE KEY UPDATE')
      .replace(/excluded\.(`\w+`)/g, 'VALUES($1)')
      // Only the guarded inserts' `SELECT <values> WHERE NOT EXISTS (…)` select no table.
      .replace(/(^|\s)WHERE NOT EXISTS/, '$1FROM DUAL WHERE NOT EXISTS'),
  )
  return strings
}
