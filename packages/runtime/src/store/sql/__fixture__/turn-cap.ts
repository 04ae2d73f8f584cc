import { expect } from 'vitest'
import { defineSkill } from '../../../skills/skill.js'
import type { Store } from '../../store.js'
import { startTestServer, userMessage } from '../../../testing/test-server.js'

/** Two exchanges on stores of one database (two replicas) hold one owner's turn cap of 2 together. */
export async function expectTurnCapAcrossReplicas(replicaA: Store, replicaB: Store): Promise<void> {
  const echo = defineSkill({ id: 'echo', description: 'echo', handler: (ctx) => ctx.complete(ctx.text) })
  const options = { skills: [echo], maxTurnsPerHour: 2 }
  const first = await startTestServer({ ...options, store: replicaA })
  const second = await startTestServer({ ...options, store: replicaB })
  try {
    const send = (server: typeof first) => server.rpc('SendMessage', { message: userMessage('hi', { skill: 'echo' }) }, { token: 'bob' })
    expect((await send(first)).status).toBe(200)
    expect((await send(second)).status).toBe(200)
    const refused = await send(first)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3590)
    expect((await send(second)).status).toBe(429)
  } finally {
    await first.close()
    await second.close()
  }
}
