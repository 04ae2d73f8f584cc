import type { RequestListener } from 'node:http'
import express from 'express'
import {
  a2aListener,
  createAgentHost,
  createToolRegistry,
  MemoryJobQueue,
  type AgentHost,
  type AgentHostOptions,
  type JobQueue,
  type PrincipalResolver,
  type Store,
} from '@a2a-agent/runtime'
import { createInbox, prismaInboxTokens } from '@a2a-agent/runtime/inbox'
import { PrismaStore } from '@a2a-agent/runtime/prisma'
import { entityTools } from './a2a/entities.gen.js'
import type { Db } from './db.js'
import { overdue } from './overdue.js'
import { statement, statementJob } from './statement.js'

export interface AppOptions {
  db: Db
  resolvePrincipal: PrincipalResolver
  /** Where the A2A tasks live; by default the app's database through `db` (PrismaStore). */
  store?: Store
  /** Signs the agents' cards: a PEM, JWK or JWK Set (A2A_CARD_SIGNING_KEY); unsigned when absent. */
  signingKeys?: string
  /** Options both agents share, over the defaults below (tests lower limits, for one). */
  shared?: AgentHostOptions['shared']
  /** Where the statement jobs wait for a worker (see src/main.ts); by default the process's memory. */
  jobQueue?: JobQueue
  /** Serve A2A 0.3 clients too (A2A_COMPAT_V03=true): the 0.3 methods, shapes and card beside 1.0, on the same tasks. */
  v03?: boolean
}

const security = {
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
}

/**
 * Two agents in one app, on the app's own database: `invoices`, the entity agent (the generated
 * `entity.invoices` and `entity.customers` skills) at /a2a/invoices, and `reports`, the reporting
 * agent (the hand-written `overdue` and `statement` skills, the latter's work run as a job) at
 * /a2a/reports; GET /a2a/agents lists them for the caller. The entity tools are also served over MCP at /mcp.
 */
export function createApp({ db, resolvePrincipal, store = new PrismaStore(db), signingKeys, shared, jobQueue = new MemoryJobQueue(), v03 = false }: AppOptions): {
  listener: RequestListener
  host: AgentHost
} {
  const monthlyStatement = statementJob(db)
  const host = createAgentHost({
    resolvePrincipal,
    // Caps for unattended callers (see the runtime README's Limits): generous for people, firm for loops.
    shared: { store, signingKeys, maxTurnsPerHour: 600, maxOccupiedTasksPerTenant: 20, maxStreamsPerKey: 20, compat: { v03 }, ...shared },
    agents: [
      {
        id: 'invoices',
        tools: createToolRegistry(entityTools(db)),
        // The extended card describes each entity skill with only the operations the caller's key allows.
        extendedCard: () => [],
        card: { name: 'Invoices agent', description: 'Lists, reads and records your invoices and customers.', version: '0.1.0', ...security },
      },
      {
        id: 'reports',
        // `statement` hands its work to a job: host.jobWorker() runs it (src/main.ts starts one).
        skills: [overdue(db), statement(monthlyStatement)],
        jobs: { queue: jobQueue, jobs: [monthlyStatement] },
        card: {
          name: 'Invoice reports',
          description: 'Tells you which of your invoices are overdue, with the amounts due, and prepares monthly statements.',
          version: '0.1.0',
          ...security,
        },
      },
    ],
  })
  // The app's own routes go on `app`; the agents' routes and /mcp are answered before Express sees the request.
  const app = express()
  app.disable('x-powered-by')
  // People answer the agents' questions at /inbox; `npx a2a inbox-link --user <id>` signs one in.
  app.use(createInbox(host, { tokens: prismaInboxTokens(db) }).middleware)
  return { listener: a2aListener(host, app, { mcp: { agent: 'invoices' } }), host }
}
