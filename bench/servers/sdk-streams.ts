/**
 * Streams bench target on the official SDK: DefaultRequestHandler on Express 5 (its JSON-RPC
 * handler), with a `hold` executor doing what ours does for SendStreamingMessage: a task, a
 * WORKING status, then nothing until the driver says finish, then COMPLETED. Prints `{"port":N}`
 * once listening. Control endpoints as in streams-server.ts: POST /bench/finish, GET /bench/memory.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { AgentCard, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk'
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server'
import type { AgentExecutor } from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import { listenBacklog, stopWithDriver } from './shared.js'

/** Executors waiting for the driver's finish signal. */
const held = new Set<() => void>()

const status = (taskId: string, contextId: string, state: string) =>
  AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state, timestamp: new Date().toISOString() } }))

const executor: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId } = context
    const task = Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() } })
    task.history = [context.userMessage]
    bus.publish(AgentEvent.task(task))
    bus.publish(status(taskId, contextId, 'TASK_STATE_WORKING'))
    await new Promise<void>((resolve) => held.add(resolve))
    bus.publish(status(taskId, contextId, 'TASK_STATE_COMPLETED'))
    bus.finished()
  },
  async cancelTask() {},
}

const card = AgentCard.fromJSON({
  name: 'Bench (sdk streams)',
  description: 'SSE streams target',
  version: '0.0.0',
  supportedInterfaces: [{ url: '', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'hold', name: 'hold', description: 'Holds the task open', tags: ['hold'] }],
})

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)
const app = express()
app.post('/bench/finish', (_request, response) => {
  const count = held.size
  for (const finish of held) finish()
  held.clear()
  response.json({ tasks: count })
})
app.get('/bench/memory', (_request, response) => {
  ;(globalThis as { gc?: () => void }).gc?.()
  response.json({ ...process.memoryUsage(), held: held.size, activeRuns: held.size })
})
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
// The same listen backlog as ours gets: the bench compares what each does with the connections.
const server = app.listen({ port: 0, host: '127.0.0.1', backlog: listenBacklog() }, () => {
  const port = (server.address() as AddressInfo).port
  card.supportedInterfaces[0]!.url = `http://127.0.0.1:${port}/a2a`
  console.log(JSON.stringify({ port }))
})

stopWithDriver(server)
