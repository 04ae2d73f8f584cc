/**
 * A MySQL/MariaDB pool's connections cut, and a server that is not there, for the tests of what
 * the runtime's pools (MysqlStore, MysqlJobQueue, MysqlPushOutbox) do then. A pool to be cut alone gets
 * a database of its own (openDatabase), so its connections are the ones information_schema.PROCESSLIST
 * lists on that database, and killing them touches no other pool's.
 * @module
 */
import { expect } from 'vitest'
import type { Logger } from '../../../../log/logger.js'
import { freePort } from '../../../../../../../test/free-port.js'
import { onMysql } from '../../../prisma/__fixture__/databases.js'

/** Kills every connection to the database of `url` but the killer's own, as a failover or an operator would; answers how many. */
export function killConnections(url: string): Promise<number> {
  return onMysql(url, async (admin) => {
    const ids = (await admin.query('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()')) as { id: number }[]
    for (const { id } of ids) await admin.query(`KILL CONNECTION ${Number(id)}`).catch(() => undefined)
    return ids.length
  })
}

/** A logger that keeps its error lines. */
export function keepingLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return { lines, warn: () => {}, error: (line) => lines.push(line) }
}

/**
 * A `mysql://` URL, with a password, on a loopback port where nothing listens (free when asked);
 * its pool gives up on a connection after a second (`acquireTimeout`), not the default ten.
 */
export async function nowhereUrl(password: string): Promise<string> {
  return `mysql://app:${password}@127.0.0.1:${await freePort()}/app?acquireTimeout=1000`
}

/**
 * Expects `start` (of `who`, made on `nowhereUrl('hunter2')` with `logger`) to reject naming the
 * URL without its password, and `logger` to have logged the failed connects under `logged`.
 */
export async function expectUnreachable(who: string, start: () => Promise<void>, logger: { lines: string[] }, logged: string): Promise<void> {
  const error: Error = await start().then(
    () => expect.fail(`${who} started with no server`),
    (rejected) => rejected,
  )
  expect(error.message).toMatch(
    new RegExp(`^${who} could not connect to mysql://app:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/app: .*ECONNREFUSED.*Check that MySQL or MariaDB is up at that host and port`),
  )
  expect(logger.lines).toContainEqual(expect.stringMatching(new RegExp(`^${logged}.*ECONNREFUSED`)))
  expect(JSON.stringify([error.message, logger.lines])).not.toContain('hunter2')
}
