import type { Socket } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { corkedSocket } from './corked-socket.js'

let database: TestDatabase
beforeAll(async () => {
  database = await openDatabase('postgres')
})
afterAll(async () => {
  await database?.close()
})

it("sends a pipelined transaction's statements of one tick in one write, as PostgresStore's group commit does", async () => {
  const client = new pg.Client({ connectionString: database.url, stream: corkedSocket, pipeline: true } as pg.ClientConfig)
  await client.connect()
  try {
    const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream
    const writes: number[] = []
    const [writeOne, writeMany] = [socket._write.bind(socket), socket._writev!.bind(socket)]
    socket._write = (chunk, encoding, callback) => (writes.push(1), writeOne(chunk, encoding, callback))
    socket._writev = (chunks, callback) => (writes.push(chunks.length), writeMany(chunks, callback))
    const select = (value: number) => client.query({ name: 'corked', text: 'SELECT $1::int AS "value"', values: [value] })
    const answers = await Promise.all([client.query('BEGIN'), select(1), select(2), client.query('COMMIT')])
    expect(answers.slice(1, 3).map((answer) => answer.rows)).toEqual([[{ value: 1 }], [{ value: 2 }]])
    // BEGIN, Parse + Bind/Describe/Execute/Sync twice, COMMIT: one syscall, not one per statement.
    expect(writes).toEqual([11])
  } finally {
    await client.end()
  }
})
