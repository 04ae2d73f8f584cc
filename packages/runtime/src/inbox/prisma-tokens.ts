/**
 * The inbox's tokens in the app's database, through its Prisma client (the A2AInboxToken model `a2a
 * generate entities` writes to prisma/a2a.prisma), so a link printed by `a2a inbox-link` in
 * another process signs in on every replica.
 * @module
 */
import type { Delegate } from '../store/prisma/client.js'
import type { InboxTokenRecord, InboxTokens } from './tokens.js'

/** An A2AInboxToken row as Prisma returns it (the schema cannot say `kind` is one of two words). */
export type InboxTokenRow = Omit<InboxTokenRecord, 'kind'> & { kind: string }

/** What the inbox needs of an app's Prisma client: the A2AInboxToken delegate. */
export interface PrismaInboxTokenClient {
  a2AInboxToken: Delegate<InboxTokenRow>
}

const recordOf = (row: InboxTokenRow | null, kind: InboxTokenRecord['kind']): InboxTokenRecord | undefined => (row?.kind === kind ? { ...row, kind } : undefined)

export function prismaInboxTokens(db: PrismaInboxTokenClient): InboxTokens {
  const rows = db.a2AInboxToken
  return {
    async put(record) {
      // Expired rows go when new ones come: the table holds little more than the live tokens.
      await rows.deleteMany({ where: { expiresAt: { lt: record.createdAt } } })
      await rows.create({ data: record })
    },
    async useLink(hash, now) {
      // One conditional update: of two concurrent uses, one changes the row and the other nothing.
      const { count } = await rows.updateMany({ where: { hash, kind: 'link', usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } })
      return count === 1 ? recordOf(await rows.findUnique({ where: { hash } }), 'link') : undefined
    },
    async findSession(hash, now) {
      const session = recordOf(await rows.findUnique({ where: { hash } }), 'session')
      return session && session.expiresAt > now ? session : undefined
    },
    async remove(hash) {
      await rows.deleteMany({ where: { hash } })
    },
  }
}
