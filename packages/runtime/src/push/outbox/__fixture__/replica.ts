/**
 * A replica that only delivers: the outbox of the database at argv[2] (PushOutbox, or
 * MysqlPushOutbox for a mysql:// URL), started, running until it is killed. Prints "started" once
 * its workers run.
 */
import { outboxDatabaseOf } from './outbox-databases.js'

const url = process.argv[2]!
const outbox = outboxDatabaseOf(url).outbox(url, {
  allowPrivate: true,
  timeoutMs: 1000,
  concurrency: 1,
  pollingIntervalSeconds: 0.5,
  sweepIntervalMs: 200,
  logger: { warn: () => {}, error: (line) => console.error(line) },
})
await outbox.start()
console.log('started')
