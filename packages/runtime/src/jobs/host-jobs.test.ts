import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgentHost, type AgentHost } from '../agents/agent-host.js'
import { defineSkill } from '../skills/skill.js'
import { mounted } from '../testing/mount.js'
import { tokenResolver, userMessage } from '../testing/test-server.js'
import { defineJob, type Job } from '../skills/job.js'
import type { JobWorker } from './job-worker.js'
import { MemoryJobQueue } from './memory-job-queue.js'

// Jobs under an AgentHost: two agents on one queue, each job run on its own agent's exchange.

let server: Server | undefined
let host: AgentHost | undefined
let worker: JobWorker | undefined
afterEach(async () => {
  await worker?.stop()
  await host?.shutdown({ timeoutMs: 500 })
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = host = worker = undefined
})

const closing = (agent: string) => defineJob({ name: 'close', input: z.object({}), run: (ctx) => ctx.complete(`closed by ${agent}`) })
const handing = (job: Job) => defineSkill({ id: 'close', description: 'closes the period on a job', handler: (ctx) => ctx.enqueue(job, {}) })

it("host.jobWorker() runs each agent's jobs on its own exchange, from one queue", async () => {
  const queue = new MemoryJobQueue()
  const [books, reports] = [closing('books'), closing('reports')]
  host = createAgentHost({
    resolvePrincipal: tokenResolver({ alice: { owner: 'alice' } }),
    agents: [
      { id: 'books', skills: [handing(books)], jobs: { queue, jobs: [books] }, card: { name: 'Books', description: 'Keeps the books', version: '1.0.0' } },
      { id: 'reports', skills: [handing(reports)], jobs: { queue, jobs: [reports] }, card: { name: 'Reports', description: 'Reports', version: '1.0.0' } },
    ],
  })
  server = createServer(mounted(host, express())).listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server!.once('listening', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const rpc = async (agent: string, method: string, params: unknown) => {
    const response = await fetch(`${url}/a2a/${agent}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: 'Bearer alice' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await response.json()) as any).result
  }
  const fromBooks = (await rpc('books', 'SendMessage', { message: userMessage('x') })).task
  const fromReports = (await rpc('reports', 'SendMessage', { message: userMessage('x') })).task
  expect([fromBooks.status.state, fromReports.status.state]).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_WORKING'])
  worker = host.jobWorker({ handOverPollMs: 10 })
  await worker.start()
  const said = async (agent: string, id: string) => (await rpc(agent, 'GetTask', { id }))?.status.message?.parts[0].text
  await expect.poll(() => said('books', fromBooks.id)).toBe('closed by books')
  await expect.poll(() => said('reports', fromReports.id)).toBe('closed by reports')
  expect(queue.pending).toBe(0)
})

it('host.jobWorker() without jobs says what to give', () => {
  host = createAgentHost({
    resolvePrincipal: tokenResolver({ alice: { owner: 'alice' } }),
    agents: [{ id: 'books', skills: [defineSkill({ id: 'x', description: 'x', handler: () => {} })], card: { name: 'Books', description: 'Books', version: '1.0.0' } }],
  })
  expect(() => host!.jobWorker()).toThrow('jobWorker() needs jobs: give an agent (or shared) jobs: { queue, jobs: [...] }')
})
