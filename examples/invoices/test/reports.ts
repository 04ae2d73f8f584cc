// What the reporting agent's tests (overdue.test.ts, statement.test.ts) share: the app, started
// once per test file, the invoices entity's MCP tools (their calls record the invoices the reports
// read) and JSON-RPC calls to the agent at /a2a/reports.
import { afterAll, beforeAll, expect } from 'vitest'
import { entityCaller, type EntityCaller, type User } from '@a2a-agent/runtime/testing'
import { createTestApp, type TestApp } from './support.js'

export interface Reports {
  readonly app: TestApp
  readonly invoices: EntityCaller
  /** `method` on the reporting agent as `user`; its result, or a throw naming its error. */
  call(user: User, method: string, params: unknown): Promise<any>
  /** SendMessage of `text` to `skill`; its task. */
  ask(user: User, skill: string, text: string): Promise<any>
}

/** Starts the app before the file's tests and closes it after. */
export function reportsAgent(): Reports {
  let app: TestApp
  let invoices: EntityCaller
  beforeAll(async () => {
    app = await createTestApp()
    invoices = await entityCaller(app, { skill: 'entity.invoices', tools: {} })
  })
  afterAll(async () => {
    await invoices?.close()
    await app?.close()
  })
  const call = async (user: User, method: string, params: unknown) => {
    const response = await fetch(`${app.url}/a2a/reports`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${app.tokens[user]}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    if (body.error) throw new Error(JSON.stringify(body.error))
    return body.result
  }
  return {
    get app() {
      return app
    },
    get invoices() {
      return invoices
    },
    call,
    ask: async (user, skill, text) =>
      (await call(user, 'SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skill } } })).task,
  }
}
