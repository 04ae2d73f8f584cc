import { Sql } from 'sql-template-tag'
import { describe, expect, it } from 'vitest'
import type { StreamResponse } from '../../wire/types.js'
import { PostgresStore } from './postgres/postgres-store.js'
import { updateTask, type TaskUpdate } from './statements.js'

// A shaped statement must have exactly the text it would have been built with: a shape key that
// missed something its text depends on would send one statement's text with another's values.

/** The text as built from the statement's own fragments, not taken from its shape. */
const built = (statement: Sql) => ({ text: new Sql(statement.strings, statement.values).text, sql: new Sql(statement.strings, statement.values).sql })

const event: StreamResponse = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } }

/** Every combination of the optional parts an update may carry, each built twice with different values. */
function changes(): TaskUpdate[] {
  const all: TaskUpdate[] = []
  for (const messageIds of [undefined, ['m1'], ['m1', 'm2']])
    for (const repliedWithMessage of [undefined, true, false])
      for (const lease of [undefined, null, { runner: 'r1', until: 5000 }])
        for (const timestamp of [undefined, '2026-01-01T00:00:00.000Z'])
          for (const events of [[], [event], [event, event, event]]) {
            const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' as const, ...(timestamp ? { timestamp } : {}) } }
            const change = { id: 't1', expectedVersion: 1, task, taskJson: JSON.stringify(task), events, versions: Math.max(events.length, 1) }
            all.push({
              ...change,
              ...(messageIds ? { messageIds } : {}),
              ...(repliedWithMessage !== undefined ? { repliedWithMessage } : {}),
              ...(lease !== undefined ? { lease } : {}),
            })
          }
  return all
}

class Exposed extends PostgresStore {
  statement(change: TaskUpdate): Sql {
    return this.updateStatement(change)
  }
}

describe('shaped statements', () => {
  it('an update has the text its own fragments build, whatever it carries', () => {
    for (const change of [...changes(), ...changes()]) {
      const statement = updateTask(change)
      expect({ text: statement.text, sql: statement.sql }).toEqual(built(statement))
    }
  })

  it("PostgresStore's update keeping its events has the text its own fragments build", async () => {
    const store = new Exposed('postgresql://nobody@127.0.0.1:1/none', { onConnectionError: () => {} })
    try {
      for (const change of [...changes(), ...changes()]) {
        const statement = store.statement(change)
        expect(statement.text).toBe(built(statement).text)
      }
    } finally {
      await store.close()
    }
  })
})
