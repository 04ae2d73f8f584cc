/**
 * Bench target: the official SDK's DefaultRequestHandler with an executor doing the same work as
 * ours (task, one artifact, completed). Prints `{"port":N}` on stdout once listening. BENCH_HTTP=grpc
 * serves it over the SDK's own gRPC service (`@a2a-js/sdk/server/grpc` on grpc-js) instead.
 * BENCH_SDK_DB (a postgresql://, mysql:// or sqlite: URL, whose tables `a2a-db upgrade` made)
 * keeps the tasks in the SDK's DatabaseTaskStore there, on Kysely with the driver its own CLI uses
 * (pg, mysql2, better-sqlite3) and a pool of 10 connections, as ours has; else InMemoryTaskStore.
 */
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import express, { type NextFunction, type Request, type Response } from 'express'
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk'
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server'
import type { AgentExecutor, TaskStore } from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express'

/** Express's own final handler (a dependency of express 5, without types of its own). */
const finalhandler = createRequire(import.meta.url)('finalhandler') as (request: Request, response: Response, options: { env: string }) => (error: unknown) => void

const executor: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId } = context
    // The SDK works on ts-proto objects: build them from wire JSON, then attach the user message.
    const task = Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() } })
    task.history = [context.userMessage]
    bus.publish(AgentEvent.task(task))
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId,
          artifact: { artifactId: randomUUID(), name: 'result', parts: [{ text: 'ok', mediaType: 'text/plain' }] },
          lastChunk: true,
        }),
      ),
    )
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId,
          status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
        }),
      ),
    )
    bus.finished()
  },
  async cancelTask() {},
}

const card = AgentCard.fromJSON({
  name: 'Bench (sdk)',
  description: 'SendMessage throughput target',
  version: '0.0.0',
  // The url is filled in once the port is known; the handler reads protocolVersion for its version check.
  supportedInterfaces: [
    { url: '', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: '', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'done', name: 'done', description: 'Completes at once', tags: ['done'] }],
})

/** The SDK's DatabaseTaskStore on BENCH_SDK_DB, through the Kysely dialect for its scheme. */
async function databaseTaskStore(url: string): Promise<TaskStore> {
  const { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } = await import('kysely')
  const { DatabaseTaskStore } = await import('@a2a-js/sdk/server/database')
  const pool = 10
  let dialect
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await import('pg')
    dialect = new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: pool }) })
  } else if (url.startsWith('mysql://')) {
    const { createPool } = await import('mysql2')
    dialect = new MysqlDialect({ pool: createPool({ uri: url, connectionLimit: pool }) })
  } else if (url.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3')
    dialect = new SqliteDialect({ database: new Database(url.slice('sqlite:'.length)) })
  } else throw new Error(`BENCH_SDK_DB must be a postgresql://, mysql:// or sqlite: URL, got ${JSON.stringify(url)}`)
  return new DatabaseTaskStore(new Kysely({ dialect }))
}

const sdkDb = process.env.BENCH_SDK_DB
const handler = new DefaultRequestHandler(card, sdkDb ? await databaseTaskStore(sdkDb) : new InMemoryTaskStore(), executor)
const app = express()
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
// The REST routes first: the JSON-RPC handler, mounted at the prefix, would take them too.
app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
// Errors answered as Express's default handler answers them (its finalhandler, NODE_ENV=production)
// minus the stack it prints for each: bench:heavy-requests sends thousands of bodies over the SDK's
// 100 KB limit, whose traces would flood the bench's output and charge the SDK for writing them.
app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => finalhandler(request, response, { env: 'production' })(error))
if (process.env.BENCH_HTTP === 'grpc') {
  const grpc = await import('@grpc/grpc-js')
  const { A2AService, grpcService, UserBuilder: GrpcUserBuilder } = await import('@a2a-js/sdk/server/grpc')
  const server = new grpc.Server()
  server.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }))
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error
    card.supportedInterfaces.push({ url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' })
    console.log(JSON.stringify({ port }))
  })
  process.once('SIGTERM', () => server.tryShutdown(() => process.exit(0)))
} else {
  const server = app.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port
    card.supportedInterfaces[0]!.url = `http://127.0.0.1:${port}/a2a`
    card.supportedInterfaces[1]!.url = `http://127.0.0.1:${port}/a2a/rest`
    console.log(JSON.stringify({ port }))
  })

  process.once('SIGTERM', () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}
