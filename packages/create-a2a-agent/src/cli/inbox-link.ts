/**
 * `a2a inbox-link --user <id>`: a one-time sign-in link to the app's inbox for one person, stored
 * (as its hash) in the app's database through its own Prisma client (the A2AInboxToken model), so
 * the running app, on any replica, accepts it once before it expires.
 * @module
 */
import { inboxLinkUrl, mintInboxLink, prismaInboxTokens, type PrismaInboxTokenClient } from '@a2a-agent/runtime/prisma'
import { type AppDbOptions, CliUserError, reportFailure, withAppDb } from './app-db.js'
import type { Io } from './io.js'

export interface InboxLinkCommand {
  user: string
  tenant?: string
  /** Minutes the link stays usable; default 15. */
  minutes?: number
  /** The app's base URL as people reach it; default PUBLIC_URL, else http://localhost:<PORT or 3000>. */
  url?: string
}

/** Returns the exit code: 0 printed, 1 user error (bad flag, database refused), 2 bug. */
export async function runInboxLink(command: InboxLinkCommand, options: AppDbOptions, io: Io): Promise<number> {
  try {
    if (!command.user.trim()) throw new CliUserError('--user is empty; name the person the link signs in (the owner of their tasks)')
    if (command.tenant !== undefined && !command.tenant.trim()) throw new CliUserError('--tenant is empty; leave it out for no tenant')
    const minutes = command.minutes ?? 15
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60) throw new CliUserError(`--minutes ${command.minutes}: give a number of minutes from 1 to 1440`)
    return await withAppDb<PrismaInboxTokenClient, number>(options, async (db) => {
      // Read after withAppDb loaded the app's .env.
      const base = command.url ?? process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`
      if (!/^https?:\/\/[^/]+/.test(base)) throw new CliUserError(`--url ${base}: give the app's base URL, like https://agents.example.com`)
      const { token, expiresAt } = await mintInboxLink(prismaInboxTokens(db), { owner: command.user, tenant: command.tenant, ttlMs: minutes * 60_000 })
      // The link alone on stdout, so `LINK=$(a2a inbox-link ...)` captures it; the rest on stderr.
      io.stdout.write(`${inboxLinkUrl(base, '/inbox', token)}\n`)
      io.stderr.write(
        `Sign-in link for ${command.user}${command.tenant !== undefined ? ` in tenant ${command.tenant}` : ''}: works once, until ${expiresAt.toISOString()}. Send it to them privately.\n`,
      )
      return 0
    })
  } catch (error) {
    return reportFailure(error, io)
  }
}
