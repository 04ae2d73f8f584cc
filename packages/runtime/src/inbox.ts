/**
 * `@a2a-agent/runtime/inbox`: a person's inbox for the app's agents at `/inbox`. The tasks waiting
 * on the signed-in person come first, each answerable from a form that sends the very SendMessage
 * an A2A caller would; the list updates live; every work product has a web URL. People sign in
 * through the app's own login (`resolveSession`) or with a one-time link (`npx a2a inbox-link
 * --user <id>`), and see only their own tasks in their tenant, as over A2A. Pages are rendered on
 * the server with hono's `html` helper (the only dependency this entry brings).
 *
 * @example
 * ```ts
 * import { createInbox, prismaInboxTokens } from '@a2a-agent/runtime/inbox'
 *
 * const inbox = createInbox(exchange, { tokens: prismaInboxTokens(db) }) // or an AgentHost
 * app.use(inbox.middleware) // before body parsers
 * ```
 * @module
 */
export { createInbox, Inbox, type InboxOptions } from './inbox/inbox.js'
export type { SessionResolver } from './inbox/session.js'
export { inboxLinkUrl, LINK_TTL_MS, MemoryInboxTokens, mintInboxLink, type InboxTokenKind, type InboxTokenRecord, type InboxTokens, type NewInboxLink } from './inbox/tokens.js'
export { prismaInboxTokens, type InboxTokenRow, type PrismaInboxTokenClient } from './inbox/prisma-tokens.js'
