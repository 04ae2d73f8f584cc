/**
 * Several agents in one app against the official `@a2a-js/sdk` client: it reads the index, points
 * its card resolver at an entry's base URL, verifies the signed card and sends the agent a task.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SendMessageRequest, Task, verifyAgentCardSignature } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { createAgentHost, defineSkill, generateSigningKey, type AgentHost } from '@a2a-agent/runtime'
import { agentsRouter } from '@a2a-agent/runtime/express'
import { tokenResolver } from '@a2a-agent/runtime/testing'

let server: Server
let host: AgentHost
let url: string

beforeAll(async () => {
  const skill = (id: string) => defineSkill({ id, description: id, handler: (ctx) => ctx.complete(`${id}: ${ctx.text}`) })
  host = createAgentHost({
    resolvePrincipal: tokenResolver({ alice: { owner: 'alice' } }),
    shared: { signingKeys: generateSigningKey() },
    agents: [
      { id: 'books', skills: [skill('ledger')], card: { name: 'Books', description: 'Keeps the books', version: '1.0.0' } },
      { id: 'reports', skills: [skill('monthly')], card: { name: 'Reports', description: 'Monthly reports', version: '1.0.0' } },
    ],
  })
  server = express().use(agentsRouter(host)).listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await host?.shutdown({ timeoutMs: 500 })
  server?.closeAllConnections()
  await new Promise<void>((resolve) => server?.close(() => resolve()))
})

const fetchImpl: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers)
  headers.set('Authorization', 'Bearer alice')
  return fetch(input, { ...init, headers })
}

describe('a multi-agent index with the official SDK', () => {
  it('resolves an index entry at its base URL, verifies its card and talks to that agent', async () => {
    const { agents } = (await (await fetchImpl(`${url}/a2a/agents`)).json()) as { agents: { id: string; cardUrl: string }[] }
    const entry = agents.find((agent) => agent.id === 'reports')!
    // The agent's base URL, as a client holding only the entry would derive it.
    const base = entry.cardUrl.replace(/\.well-known\/agent-card\.json$/, '')
    expect(base).toBe(`${url}/a2a/reports/`)
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        preferredTransports: ['JSONRPC'],
      }),
    )
    const client = await factory.createFromUrl(base)
    const card = await client.getAgentCard(
      undefined,
      verifyAgentCardSignature(async (kid, jku) => {
        const { keys } = (await (await fetch(jku!)).json()) as { keys: { kid: string }[] }
        return keys.find((key) => key.kid === kid)!
      }),
    )
    expect(card.name).toBe('Reports')
    const result = await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: 'sdk-1', role: 'ROLE_USER', parts: [{ text: 'March' }] } }))
    const task = Task.toJSON(result as Task) as any
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.status.message.parts[0].text).toBe('monthly: March')
  })
})
