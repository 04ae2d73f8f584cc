/**
 * `a2a users export | erase <id>`: one user's data in the A2A tables (tasks, push configs, API
 * keys), for access and erasure requests, through the app's own Prisma client.
 * @module
 */
import { eraseUser, exportUser, type PrismaUserDataClient } from '@a2a-agent/runtime/prisma'
import { type AppDbOptions, CliUserError, reportFailure, withAppDb } from './app-db.js'
import type { Io } from './io.js'

export type UsersAction = { action: 'export'; user: string } | { action: 'erase'; user: string; yes: boolean }

/** Returns the exit code: 0 done, 1 user error (no --yes, database refused), 2 bug. */
export async function runUsers(command: UsersAction, options: AppDbOptions, io: Io): Promise<number> {
  try {
    if (!command.user.trim()) throw new CliUserError('the user id is empty')
    if (command.action === 'erase' && !command.yes) {
      throw new CliUserError(
        `erasing deletes all of ${command.user}'s tasks, push configs and API keys for good; pass --yes to go ahead (\`a2a users export ${command.user}\` first keeps a copy)`,
      )
    }
    return await withAppDb<PrismaUserDataClient, number>(options, async (db) => {
      if (command.action === 'export') {
        io.stdout.write(`${JSON.stringify({ owner: command.user, ...(await exportUser(db, command.user)) }, null, 2)}\n`)
        return 0
      }
      const erased = await eraseUser(db, command.user)
      io.stdout.write(
        `Erased ${command.user}: ${erased.tasks} task(s), ${erased.pushConfigs} push config(s), ${erased.messageIds} message id(s), ${erased.apiKeys} API key(s), ${erased.artifactFiles} artifact file(s).\n`,
      )
      return 0
    })
  } catch (error) {
    return reportFailure(error, io)
  }
}
