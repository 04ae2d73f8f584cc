/**
 * How generated entity tests reach a running app: an entity's skill over A2A (JSON-RPC SendMessage
 * with one data part) and its tools over MCP (the official SDK client), as alice or bob, or as any
 * caller the app holds a token of (see {@link serveToApiKeys}). Shared by every app's generated
 * tests instead of being generated into each of them.
 * @module
 */
import { randomUUID } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Task } from '../wire/types.js'

/** The running app the tests talk to: its base URL and a bearer token for each caller. */
export interface TestApp<U extends string = User> {
  url: string
  /** The exchange's JSON-RPC URL when it is not `<url>/a2a` (an agent of an AgentHost: `<url>/a2a/<id>`). */
  a2aUrl?: string
  tokens: Record<U, string>
}

export type Transport = 'A2A' | 'MCP'
export type User = 'alice' | 'bob'
export type Args = Record<string, unknown>

/** A tool's answer either way in: its JSON result, or the text of its refusal. */
export type Outcome = { result: any; error?: undefined } | { result?: undefined; error: string }

/** One operation as `user`, over a transport the caller fixed. */
export type Call<U extends string = User> = (user: U, operation: string, args?: Args) => Promise<Outcome>

/** One entity's ways in: its skill id and its tool name per operation. */
export interface EntityEndpoints {
  skill: string
  tools: Record<string, string>
}

export interface ListedTool {
  name: string
  inputSchema: { properties?: Record<string, unknown> }
}

export interface EntityCaller<U extends string = User> {
  /** Runs one operation as `user`: over A2A through the entity's skill, over MCP through its tool. */
  call(transport: Transport, user: U, operation: string, args?: Args): Promise<Outcome>
  /** The task answering one message to the entity's skill. */
  send(user: U, operation: string, args?: Args): Promise<Task>
  /** Calls any tool over MCP and returns its result; a refusal throws. */
  tool(user: U, name: string, args: Args): Promise<any>
  /** The tools MCP lists to `user`. */
  listTools(user: U): Promise<ListedTool[]>
  close(): Promise<void>
}

export async function entityCaller<U extends string = User>(app: TestApp<U>, entity: EntityEndpoints): Promise<EntityCaller<U>> {
  // One MCP session per caller, opened when the caller first uses MCP.
  const clients = new Map<U, Promise<Client>>()
  const clientOf = (user: U) => {
    let client = clients.get(user)
    if (!client) clients.set(user, (client = connect(app, app.tokens[user])))
    return client
  }
  const send = (user: U, operation: string, args?: Args) => {
    const data = { skill: entity.skill, operation, ...(args ? { arguments: args } : {}) }
    return sendMessage(app, app.tokens[user], data)
  }
  const callTool = async (user: U, name: string, args: Args = {}): Promise<Outcome> => {
    const answer = await (await clientOf(user)).callTool({ name, arguments: args })
    const text = (answer.content as { text?: string }[])[0]?.text ?? ''
    return answer.isError ? { error: text } : { result: JSON.parse(text) }
  }
  return {
    async call(transport, user, operation, args) {
      if (transport === 'MCP') {
        return callTool(user, entity.tools[operation] ?? `no ${operation} tool`, args)
      }
      const task = await send(user, operation, args)
      const completed = task.status.state === 'TASK_STATE_COMPLETED'
      return completed ? { result: resultOf(task) } : { error: reasonOf(task) }
    },
    send,
    async tool(user, name, args) {
      const outcome = await callTool(user, name, args)
      if (outcome.error !== undefined) throw new Error(`${name} refused: ${outcome.error}`)
      return outcome.result
    },
    async listTools(user) {
      return (await (await clientOf(user)).listTools()).tools
    },
    async close() {
      const opened = await Promise.allSettled(clients.values())
      await Promise.all(opened.flatMap((client) => (client.status === 'fulfilled' ? [client.value.close()] : [])))
    },
  }
}

/** What the tool answered: the data part of the task's artifact. */
export function resultOf(task: Task): any {
  const part = task.artifacts?.[0]?.parts[0]
  if (part && 'data' in part) return part.data
  throw new Error(`the task (${task.status.state}) has no data artifact: ${reasonOf(task)}`)
}

/** The text of the task's status message: why it failed or was rejected. */
export function reasonOf(task: Task): string {
  const part = task.status.message?.parts[0]
  return part && 'text' in part ? part.text : ''
}

async function sendMessage(app: TestApp<string>, token: string, data: Args): Promise<Task> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] }
  const response = await fetch(app.a2aUrl ?? `${app.url}/a2a`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      Authorization: `Bearer ${token}`,
    },
    // A fresh messageId each time: it is an idempotency key, and a repeat answers the earlier task.
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  })
  const body = (await response.json()) as { result?: { task?: Task } }
  if (body.result?.task) return body.result.task
  throw new Error(`SendMessage answered ${response.status}: ${JSON.stringify(body)}`)
}

async function connect(app: TestApp<string>, token: string): Promise<Client> {
  const client = new Client({ name: 'a2a-entity-tests', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return client
}
