/**
 * A replica that only delivers: a PushOutbox on the database at argv[2], started, running until
 * it is killed. Prints "started" once its workers run.
 */
import { PushOutbox } from '../push-outbox.js'

const outbox = new PushOutbox({
  connectionString: process.argv[2],
  allowPrivate: true,
  timeoutMs: 1000,
  concurrency: 1,
  pollingIntervalSeconds: 0.5,
  sweepIntervalMs: 200,
  logger: { warn: () => {}, error: (line) => console.error(line) },
})
await outbox.start()
console.log('started')
