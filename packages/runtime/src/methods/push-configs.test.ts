import { describe, expect, it } from 'vitest'
import { viewerOf, type Principal } from '../core/principal.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import type { Caller, PushConfigOptions } from './method.js'
import { trimSettled } from '../run/retention.js'
import { RunSlots } from '../run/run-slots.js'
import { TrimPacing } from '../run/trim-pacing.js'
import { makeRecord } from '../store/conformance-fixtures.js'
import { MemoryStore } from '../store/memory-store.js'
import type { PushConfigRecord, Store } from '../store/store.js'

import { TaskEvents } from '../run/task-events.js'
import { A2AError } from '../wire/a2a-error.js'
import { parseParams, sendMessageParams } from '../wire/params.js'
import { attachPushConfig, checkSendPushConfig, createPushConfig, deletePushConfig, getPushConfig, listPushConfigs } from './push-configs.js'
import { createPushConfigParams, listPushConfigsParams, pushConfigRefParams } from '../push/push-params.js'

const quiet = { warn: () => {}, error: () => {} }

function makeCore(store: Store = new MemoryStore()): ExchangeCore {
  return {
    store,
    skills: new Map(),
    events: new TaskEvents(),
    runs: new Map(),
    slots: new RunSlots(16),
    trims: new TrimPacing(),
    retaining: new Set(),
    logger: quiet,
    limits: { taskTimeoutMs: 60_000, settledRetention: 64, pausedRetention: 64, listTasksBytes: 4 * 1024 * 1024 },
    acceptUrlParts: false,
    defaultOutputModes: ['text/plain'],
    accepting: new Map(),
    closing: false,
    replica: 'test',
    leaseMs: 30_000,
  }
}

const callerOf = (principal: Principal): Caller => ({ principal, viewer: viewerOf(principal) })
const alice = callerOf({ owner: 'alice' })
const bob = callerOf({ owner: 'bob' })
const aliceScoped = callerOf({ owner: 'alice', scopes: ['read'] })

const open: PushConfigOptions = { allowPrivate: true }
const guarded: PushConfigOptions = { allowPrivate: false, lookup: async () => ['93.184.216.34'] }
const HOOK = 'https://hooks.example.com/a2a'

async function withTask(id = 't1', owner = 'alice'): Promise<ExchangeCore> {
  const core = makeCore()
  await core.store.create(makeRecord({ id, owner }))
  return core
}

/** The A2AError a call rejects with. */
async function failure(promise: Promise<unknown>): Promise<A2AError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(A2AError)
  return error as A2AError
}

describe('createPushConfig', () => {
  it('assigns a UUID and answers the wire config without unset fields or the tenant', async () => {
    const core = await withTask()
    const created = await createPushConfig(core, alice, { taskId: 't1', url: HOOK, tenant: 'acme' }, guarded)
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), taskId: 't1', url: HOOK })
    expect(Object.keys(created).sort()).toEqual(['id', 'taskId', 'url'])
    expect(await core.store.getPushConfig('t1', created.id!)).toMatchObject({ owner: 'alice', url: HOOK })
  })

  it('keeps a client-chosen id, echoes token and authentication, and replaces that id on a repeat', async () => {
    const core = await withTask()
    const auth = { scheme: 'Bearer', credentials: 'sekrit' }
    expect(await createPushConfig(core, alice, { taskId: 't1', id: 'mine', url: HOOK, token: 'tok', authentication: auth }, guarded)).toEqual({
      id: 'mine',
      taskId: 't1',
      url: HOOK,
      token: 'tok',
      authentication: auth,
    })
    const replaced = await createPushConfig(core, alice, { taskId: 't1', id: 'mine', url: `${HOOK}/v2`, authentication: { scheme: 'Basic' } }, guarded)
    expect(replaced).toEqual({ id: 'mine', taskId: 't1', url: `${HOOK}/v2`, authentication: { scheme: 'Basic' } })
    expect((await listPushConfigs(core, alice, { taskId: 't1' })).configs).toEqual([replaced])
    // An empty id is ProtoJSON's unset: the server assigns one.
    expect((await createPushConfig(core, alice, { taskId: 't1', id: '', url: HOOK }, guarded)).id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("answers -32001 for another owner's, another scope set's or an unknown task, before looking at the URL", async () => {
    const core = await withTask()
    for (const [caller, taskId] of [
      [bob, 't1'],
      [aliceScoped, 't1'],
      [alice, 'nope'],
    ] as const) {
      // A refused URL would be -32602; the task check comes first so nothing leaks.
      const error = await failure(createPushConfig(core, caller, { taskId, url: 'http://127.0.0.1/' }, guarded))
      expect(error.code).toBe(-32001)
      expect(error.message).toBe(`Task not found: ${taskId}`)
    }
    expect(await core.store.listPushConfigs('t1')).toEqual([])
  })

  it('refuses internal targets unless allowPrivate, naming params.url', async () => {
    const core = await withTask()
    const internal = { allowPrivate: false, lookup: async () => ['10.1.2.3'] }
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/hook', 'https://intranet.example.com/hook']) {
      const error = await failure(createPushConfig(core, alice, { taskId: 't1', url }, internal))
      expect(error.code, url).toBe(-32602)
      expect(error.metadata, url).toEqual({ field: 'params.url' })
      expect(error.message, url).toMatch(/^Invalid params: params\.url: push URL host .* allowPrivatePush/)
    }
    expect((await failure(createPushConfig(core, alice, { taskId: 't1', url: 'ftp://x.example.com/' }, guarded))).metadata).toEqual({ field: 'params.url' })
    expect(await core.store.listPushConfigs('t1')).toEqual([])
    await expect(createPushConfig(core, alice, { taskId: 't1', url: 'http://127.0.0.1:8080/hook' }, open)).resolves.toMatchObject({ taskId: 't1' })
  })

  it("bounds each field's length", async () => {
    const core = await withTask()
    const error = await failure(createPushConfig(core, alice, { taskId: 't1', url: HOOK, token: 'x'.repeat(4097) }, guarded))
    expect(error.metadata).toEqual({ field: 'params.token' })
    const long = await failure(createPushConfig(core, alice, { taskId: 't1', url: `${HOOK}?${'q'.repeat(4096)}` }, guarded))
    expect(long.metadata).toEqual({ field: 'params.url' })
  })

  it('keeps 8 configs per task, deleting the oldest past the bound', async () => {
    const core = await withTask()
    for (let i = 1; i <= 11; i++) await createPushConfig(core, alice, { taskId: 't1', id: `c${String(i).padStart(2, '0')}`, url: HOOK }, guarded)
    const ids = (await listPushConfigs(core, alice, { taskId: 't1' })).configs.map((c) => c.id)
    expect(ids).toEqual(['c04', 'c05', 'c06', 'c07', 'c08', 'c09', 'c10', 'c11'])
    // Re-registering an id makes it the newest rather than the next to go.
    await createPushConfig(core, alice, { taskId: 't1', id: 'c04', url: HOOK }, guarded)
    await createPushConfig(core, alice, { taskId: 't1', id: 'c12', url: HOOK }, guarded)
    expect((await listPushConfigs(core, alice, { taskId: 't1' })).configs.map((c) => c.id)).toEqual(['c06', 'c07', 'c08', 'c09', 'c10', 'c11', 'c04', 'c12'])
    await createPushConfig(core, alice, { taskId: 't1', id: 'z', url: HOOK }, { ...guarded, maxPerTask: 2 })
    expect((await listPushConfigs(core, alice, { taskId: 't1' })).configs.map((c) => c.id)).toEqual(['c12', 'z'])
  })

  it('takes the config back out when retention deleted the task meanwhile', async () => {
    // The task is trimmed after the visibility check, just before the config lands.
    class RacingStore extends MemoryStore {
      override async putPushConfig(record: PushConfigRecord): Promise<void> {
        await this.delete(record.taskId)
        await super.putPushConfig(record)
      }
    }
    const store = new RacingStore()
    await store.create(makeRecord({ id: 't1' }))
    const core = makeCore(store)
    expect((await failure(createPushConfig(core, alice, { taskId: 't1', id: 'c1', url: HOOK }, guarded))).code).toBe(-32001)
    expect(await store.listPushConfigs('t1')).toEqual([])
  })
})

describe('getPushConfig, listPushConfigs, deletePushConfig', () => {
  it('get answers the config; a missing one is -32602 on params.id, an invisible task -32001', async () => {
    const core = await withTask()
    const created = await createPushConfig(core, alice, { taskId: 't1', id: 'c1', url: HOOK, token: 'tok' }, guarded)
    expect(await getPushConfig(core, alice, { taskId: 't1', id: 'c1' })).toEqual(created)
    const missing = await failure(getPushConfig(core, alice, { taskId: 't1', id: 'c2' }))
    expect(missing.code).toBe(-32602)
    expect(missing.metadata).toEqual({ field: 'params.id' })
    expect(missing.message).toContain('no push notification config with id "c2" on task t1')
    expect((await failure(getPushConfig(core, bob, { taskId: 't1', id: 'c1' }))).code).toBe(-32001)
    expect((await failure(getPushConfig(core, aliceScoped, { taskId: 't1', id: 'c1' }))).code).toBe(-32001)
  })

  it('list answers every config oldest first on one page, ignoring pageSize and refusing a page token', async () => {
    const core = await withTask()
    expect(await listPushConfigs(core, alice, { taskId: 't1' })).toEqual({ configs: [], nextPageToken: '' })
    const a = await createPushConfig(core, alice, { taskId: 't1', id: 'b', url: HOOK }, guarded)
    const b = await createPushConfig(core, alice, { taskId: 't1', id: 'a', url: `${HOOK}/2`, token: 't' }, guarded)
    expect(await listPushConfigs(core, alice, { taskId: 't1', pageSize: 1, pageToken: '' })).toEqual({ configs: [a, b], nextPageToken: '' })
    const forged = await failure(listPushConfigs(core, alice, { taskId: 't1', pageToken: 'abc' }))
    expect(forged.metadata).toEqual({ field: 'params.pageToken' })
    expect((await failure(listPushConfigs(core, bob, { taskId: 't1' }))).code).toBe(-32001)
  })

  it('delete answers {} and is idempotent; only an invisible task is an error', async () => {
    const core = await withTask()
    await createPushConfig(core, alice, { taskId: 't1', id: 'c1', url: HOOK }, guarded)
    await createPushConfig(core, alice, { taskId: 't1', id: 'c2', url: HOOK }, guarded)
    expect((await failure(deletePushConfig(core, bob, { taskId: 't1', id: 'c1' }))).code).toBe(-32001)
    expect(await deletePushConfig(core, alice, { taskId: 't1', id: 'c1' })).toEqual({})
    expect(await deletePushConfig(core, alice, { taskId: 't1', id: 'c1' })).toEqual({})
    expect(await deletePushConfig(core, alice, { taskId: 't1', id: 'never' })).toEqual({})
    expect((await listPushConfigs(core, alice, { taskId: 't1' })).configs.map((c) => c.id)).toEqual(['c2'])
    expect((await failure(deletePushConfig(core, alice, { taskId: 'nope', id: 'c2' }))).code).toBe(-32001)
  })
})

describe('push config params', () => {
  const field = (fn: () => unknown): string | undefined => {
    try {
      fn()
    } catch (error) {
      return (error as A2AError).metadata?.field
    }
    return undefined
  }

  it('create requires taskId and url; get and delete require taskId and id', () => {
    expect(field(() => parseParams(createPushConfigParams, { url: HOOK }))).toBe('params.taskId')
    expect(field(() => parseParams(createPushConfigParams, { taskId: 't1' }))).toBe('params.url')
    expect(field(() => parseParams(createPushConfigParams, { taskId: 't1', url: HOOK, authentication: {} }))).toBe('params.authentication.scheme')
    expect(parseParams(createPushConfigParams, { taskId: 't1', url: HOOK, tenant: 'x', extra: 1 })).toEqual({ taskId: 't1', url: HOOK, tenant: 'x' })
    expect(field(() => parseParams(pushConfigRefParams, { taskId: 't1' }))).toBe('params.id')
    expect(field(() => parseParams(pushConfigRefParams, { id: 'c1', taskId: '' }))).toBe('params.taskId')
  })

  it('list accepts pageSize 1..100 only (a ProtoJSON decimal string too)', () => {
    for (const pageSize of [1, 100]) expect(parseParams(listPushConfigsParams, { taskId: 't1', pageSize }).pageSize).toBe(pageSize)
    expect(parseParams(listPushConfigsParams, { taskId: 't1', pageSize: '5' }).pageSize).toBe(5)
    for (const pageSize of [0, 101, 1.5, 'five', '1e2']) expect(field(() => parseParams(listPushConfigsParams, { taskId: 't1', pageSize }))).toBe('params.pageSize')
  })
})

describe('SendMessage push config', () => {
  const send = (config?: Record<string, unknown>, taskId?: string) =>
    parseParams(sendMessageParams, {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...(taskId ? { taskId } : {}) },
      ...(config ? { configuration: { taskPushNotificationConfig: config } } : {}),
    })
  const prefix = 'params.configuration.taskPushNotificationConfig'

  it('checks the config before anything is written and attaches it to the task', async () => {
    expect(await checkSendPushConfig(send(), guarded)).toBeUndefined()
    const checked = await checkSendPushConfig(send({ url: HOOK, token: 'tok', taskId: '' }), guarded)
    expect(checked).toEqual({ url: HOOK, token: 'tok' })
    const core = await withTask()
    const attached = await attachPushConfig(core, (await core.store.get('t1'))!, checked!, guarded)
    expect(attached).toEqual({ id: expect.any(String), taskId: 't1', url: HOOK, token: 'tok' })
    expect(await core.store.listPushConfigs('t1')).toMatchObject([{ owner: 'alice', url: HOOK }])
  })

  it('names the field under configuration.taskPushNotificationConfig', async () => {
    const refused = await failure(checkSendPushConfig(send({ url: 'http://127.0.0.1/hook' }), guarded))
    expect(refused.metadata).toEqual({ field: `${prefix}.url` })
    const foreign = await failure(checkSendPushConfig(send({ url: HOOK, taskId: 'other' }, 't1'), guarded))
    expect(foreign.metadata).toEqual({ field: `${prefix}.taskId` })
    const onNew = await failure(checkSendPushConfig(send({ url: HOOK, taskId: 't9' }), guarded))
    expect(onNew.metadata).toEqual({ field: `${prefix}.taskId` })
    await expect(checkSendPushConfig(send({ url: HOOK, taskId: 't1' }, 't1'), guarded)).resolves.toEqual({ url: HOOK })
  })
})

describe('retention', () => {
  it("deletes the push configs of the tasks it trims, through the store's trimmer or through list and delete", async () => {
    for (const withTrimmer of [true, false]) {
      const inner = new MemoryStore()
      // The same store without its trimmer (old style: flags, no optional members): retention then lists the tier and deletes.
      const store: Store = withTrimmer
        ? inner
        : {
            capabilities: { filtersTenant: true, filtersScope: true, oneProcess: true },
            create: (r) => inner.create(r),
            get: (id) => inner.get(id),
            update: (id, v, c) => inner.update(id, v, c),
            list: (q) => inner.list(q),
            delete: (id) => inner.delete(id),
            findByMessageId: (o, m) => inner.findByMessageId(o, m),
            putPushConfig: (r) => inner.putPushConfig(r),
            getPushConfig: (t, id) => inner.getPushConfig(t, id),
            listPushConfigs: (t) => inner.listPushConfigs(t),
            deletePushConfig: (t, id) => inner.deletePushConfig(t, id),
            deletePushConfigsOfTasks: (ids) => inner.deletePushConfigsOfTasks(ids),
          }
      const core = makeCore(store)
      core.limits.settledRetention = 1
      await store.create(makeRecord({ id: 'old', time: Date.UTC(2025, 0, 1) }))
      await store.create(makeRecord({ id: 'new', time: Date.UTC(2025, 0, 2) }))
      for (const taskId of ['old', 'new']) await createPushConfig(core, alice, { taskId, id: 'c1', url: HOOK }, guarded)

      await trimSettled(core, viewerOf({ owner: 'alice' }))
      expect(await store.get('old'), `trimmer ${withTrimmer}`).toBeUndefined()
      expect(await store.listPushConfigs('old'), `trimmer ${withTrimmer}`).toEqual([])
      expect(await store.listPushConfigs('new'), `trimmer ${withTrimmer}`).toHaveLength(1)
    }
  })
})
