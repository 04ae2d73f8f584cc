/**
 * The store conformance suite: one call registers every behaviour the exchange relies on from a
 * {@link Store}, in sections: the core every store implements, then one per capability
 * (capabilities.ts). A section runs for a store that declares its capability.
 * @module
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as f from './conformance-fixtures.js'
import { NotJsonEncodableError } from '../wire/json-safe.js'
import { CAPABILITY_NAMES, capabilitiesOf, capabilityOf, type Capabilities, type CapabilityName } from './capabilities.js'
import { InvalidCursorError, type Store, type TaskNote } from './store.js'

const { T0, WRITTEN, configIds, ids, makePushConfig, makeRecord, nextTask, seed } = f

export interface StoreConformanceOptions {
  /** Runs after each test, e.g. to drop tables or close a connection. */
  cleanup?: (store: Store) => Promise<void>
  /**
   * The capabilities the store declares: the suite registers exactly their sections, and fails
   * when the store declares others. Absent: every section is registered and skipped for a store
   * without its capability.
   */
  capabilities?: readonly CapabilityName[]
}

export function describeStoreConformance(name: string, makeStore: () => Store | Promise<Store>, options: StoreConformanceOptions = {}): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store
    beforeEach(async () => {
      store = await makeStore()
    })
    afterEach(async () => {
      await options.cleanup?.(store)
    })
    /** The store as one with capability `name`, which its section's tests run only for. */
    const the = <K extends CapabilityName>(name: K): Store & Capabilities[K] => capabilityOf(store, name)!

    const sections: Record<CapabilityName, () => void> = {
      filtersTenant: () => {
        it('list filters by tenant exactly, null meaning no tenant (filtersTenant)', async () => {
          await seed(store, f.tenantFixture())
          await f.expectCases(store, f.tenantCases)
          const pages = await f.walk(store, { owner: 'alice', tenant: 'acme', pageSize: 1 })
          expect(pages.flatMap(ids)).toEqual(['acme-2', 'acme-1'])
          expect(pages.map((p) => p.total)).toEqual([2, 2])
        })
      },
      filtersScope: () => {
        it('list filters by scope exactly, null meaning a session (filtersScope)', async () => {
          await seed(store, f.scopeFixture())
          await f.expectCases(store, f.scopeCases)
          // Both filters at once, when the store honours both.
          if (capabilityOf(store, 'filtersTenant')) await f.expectCases(store, [[{ scope: 'read', tenant: null }, ['read-1']]])
        })
      },
      oneProcess: () => {
        it('create keeps the version a task held in the process reached, and updates go on from it', async () => {
          // A held task is created once its run's first turn ended, at the version its writes made.
          const held = { ...makeRecord({ id: 'held', state: 'TASK_STATE_COMPLETED' }), version: 3 }
          await store.create(held)
          expect(await store.get('held')).toEqual(held)
          expect(await store.update('held', 1, { task: held.task })).toBeUndefined()
          expect(await store.update('held', 3, { task: nextTask(held, 'TASK_STATE_COMPLETED', T0 + 1000) })).toMatchObject({ version: 4 })
        })
      },
      acceptOnce: () => {
        it("createUnlessAccepted stores a record unless one of the owner's records holds one of its message ids", async () => {
          const first = makeRecord({ id: 't1', messageIds: ['m1'] })
          expect(await the('acceptOnce').createUnlessAccepted(first)).toBe(true)
          expect(await store.get('t1')).toEqual(first)
          // Taken by t1: nothing stored, the id not indexed for t2 either.
          expect(await the('acceptOnce').createUnlessAccepted(makeRecord({ id: 't2', messageIds: ['m2', 'm1'] }))).toBe(false)
          expect(await store.get('t2')).toBeUndefined()
          expect(await store.findByMessageId('alice', 'm2')).toEqual([])
          // Another owner's message ids are not alice's, and an id accepted by an update counts too.
          expect(await the('acceptOnce').createUnlessAccepted(makeRecord({ id: 'b1', owner: 'bob', messageIds: ['m1'] }))).toBe(true)
          await store.update('t1', 1, { task: first.task, messageIds: ['m1', 'm3'] })
          expect(await the('acceptOnce').createUnlessAccepted(makeRecord({ id: 't3', messageIds: ['m3'] }))).toBe(false)
          // A duplicate id is refused as create refuses it, keeping the stored record.
          await expect(the('acceptOnce').createUnlessAccepted(makeRecord({ id: 'b1', messageIds: ['m9'] }))).rejects.toThrow()
          expect(await store.findByMessageId('alice', 'm9')).toEqual([])
        })

        it('createUnlessAccepted keeps a message id that repeats within the record, found once by it', async () => {
          const again = makeRecord({ id: 't2', messageIds: ['m3', 'm3'] })
          expect(await the('acceptOnce').createUnlessAccepted(again)).toBe(true)
          expect(await store.findByMessageId('alice', 'm3')).toEqual([again])
        })
      },
      claims: () => {
        it('a claim inserts the task once, in the state its run left it', async () => {
          const record = makeRecord({ id: 'claimed', state: 'TASK_STATE_SUBMITTED', messageIds: ['m1'] })
          const claim = await the('claims').claimNewTask(record, true)
          expect(claim).toBeDefined()
          const latest = { ...record, version: 3, task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000) }
          expect(await claim!.insert(latest)).toBe(true)
          expect(await store.get('claimed')).toEqual(latest)
          expect(await store.findByMessageId('alice', 'm1')).toEqual([latest])
          // The id is taken now: a second claim of it, by any task of the owner, is refused.
          expect(await the('claims').claimNewTask(makeRecord({ id: 'again', messageIds: ['m1'] }), true)).toBeUndefined()
        })

        it('a released claim stores nothing, and the message id can be claimed again', async () => {
          const record = makeRecord({ id: 'released', state: 'TASK_STATE_SUBMITTED', messageIds: ['m1'] })
          const claim = await the('claims').claimNewTask(record, false)
          expect(claim).toBeDefined()
          claim!.release()
          expect(await store.get('released')).toBeUndefined()
          expect(await store.findByMessageId('alice', 'm1')).toEqual([])
          const retaken = await the('claims').claimNewTask(record, false)
          expect(await retaken!.insert(record)).toBe(true)
          expect(await store.get('released')).toEqual(record)
        })

        it("with unlessAccepted a claim is refused for a message id one of the owner's tasks accepted, and only the owner's", async () => {
          await store.create(makeRecord({ id: 'first', messageIds: ['m1'] }))
          expect(await the('claims').claimNewTask(makeRecord({ id: 'second', messageIds: ['m1'] }), true)).toBeUndefined()
          expect(await store.get('second')).toBeUndefined()
          const bobs = makeRecord({ id: 'bobs', owner: 'bob', messageIds: ['m1'] })
          const claim = await the('claims').claimNewTask(bobs, true)
          expect(await claim!.insert(bobs)).toBe(true)
          expect(ids(await store.findByMessageId('bob', 'm1'))).toEqual(['bobs'])
        })
      },
      notifications: () => {
        it('tells each listener of a committed write as its task id and version, until it stops listening', async () => {
          const notes: TaskNote[] = []
          const { notifications } = the('notifications')
          const stop = notifications.listen((note) => notes.push(note))
          try {
            await expect.poll(() => notifications.live, { timeout: 10_000 }).toBe(true)
            const record = makeRecord({ id: 'noted', state: 'TASK_STATE_WORKING' })
            await store.create(record)
            await store.update('noted', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000) })
            await expect.poll(() => notes.filter((note) => 'taskId' in note && note.taskId === 'noted'), { timeout: 10_000 }).toContainEqual({ taskId: 'noted', version: 2 })
            // A write the version refuses is not told of.
            expect(await store.update('noted', 1, { task: record.task })).toBeUndefined()
          } finally {
            stop()
          }
          const heard = notes.length
          const other = makeRecord({ id: 'unheard', state: 'TASK_STATE_WORKING' })
          await store.create(other)
          await store.update('unheard', 1, { task: nextTask(other, 'TASK_STATE_COMPLETED', T0 + 1000) })
          await new Promise((resolve) => setTimeout(resolve, 50))
          expect(notes).toHaveLength(heard)
          expect(notes.filter((note) => 'taskId' in note && note.version === 1)).toEqual([])
        })
      },
      keptEvents: () => {
        it('keeps each event of a write under the version it made, in order, and answers those after a version', async () => {
          const before = makeRecord({ id: 't1', state: 'TASK_STATE_SUBMITTED', messageIds: ['m1'] })
          await seed(store, [before, makeRecord({ id: 't2' })])
          const task = nextTask(before, 'TASK_STATE_COMPLETED', T0 + 5000)
          const events = (['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'] as const).map((state) => ({
            statusUpdate: { taskId: 't1', contextId: before.contextId, status: { state } },
          }))
          const artifact = { artifactUpdate: { taskId: 't1', contextId: before.contextId, artifact: task.artifacts![0]! } }
          await store.update('t1', 1, { task, events: [events[0]!, artifact, events[1]!] })
          await store.update('t1', 4, { task, event: events[1]! })
          // A write without an event keeps none, and still makes its version.
          await store.update('t1', 5, { task })
          expect(await the('keptEvents').eventsSince('t1', 1)).toEqual([
            { version: 2, response: events[0] },
            { version: 3, response: artifact },
            { version: 4, response: events[1] },
            { version: 5, response: events[1] },
          ])
          expect((await the('keptEvents').eventsSince('t1', 3)).map((kept) => kept.version)).toEqual([4, 5])
          expect(await the('keptEvents').eventsSince('t1', 6)).toEqual([])
          expect(await the('keptEvents').eventsSince('t2', 0)).toEqual([])
          expect(await the('keptEvents').eventsSince('nope', 0)).toEqual([])
        })
      },
      leases: () => {
        it("keeps a run's lease: written on create and by update, dropped by update with null, moved by renewLeases without a version", async () => {
          const leased = { ...makeRecord({ id: 'l1', state: 'TASK_STATE_WORKING' }), lease: { runner: 'replica-a', until: T0 + 30_000 } }
          await store.create(leased)
          expect(await store.get('l1')).toEqual(leased)
          await the('leases').renewLeases('replica-a', ['l1', 'nope'], T0 + 60_000)
          await the('leases').renewLeases('replica-b', ['l1'], T0 + 90_000)
          expect(await store.get('l1')).toMatchObject({ version: 1, lease: { runner: 'replica-a', until: T0 + 60_000 } })
          const moved = await store.update('l1', 1, { task: nextTask(leased, 'TASK_STATE_WORKING', T0 + 1000), lease: { runner: 'replica-b', until: T0 + 5000 } })
          expect(moved).toMatchObject({ version: 2, lease: { runner: 'replica-b', until: T0 + 5000 } })
          const kept = await store.update('l1', 2, { task: nextTask(leased, 'TASK_STATE_WORKING', T0 + 2000) })
          expect(kept?.lease).toEqual({ runner: 'replica-b', until: T0 + 5000 })
          const dropped = await store.update('l1', 3, { task: nextTask(leased, 'TASK_STATE_COMPLETED', T0 + 3000), lease: null })
          expect(dropped).not.toHaveProperty('lease')
          expect(await store.get('l1')).toEqual(dropped)
        })

        it('expiredRuns finds submitted and working tasks whose lease expired or which have none, and nothing else', async () => {
          const lease = (until: number) => ({ lease: { runner: 'replica-a', until } })
          await store.create({ ...makeRecord({ id: 'expired', state: 'TASK_STATE_WORKING' }), ...lease(T0) })
          await store.create({ ...makeRecord({ id: 'live', state: 'TASK_STATE_WORKING' }), ...lease(T0 + 60_000) })
          await store.create(makeRecord({ id: 'leaseless', state: 'TASK_STATE_SUBMITTED' }))
          await store.create({ ...makeRecord({ id: 'queued', state: 'TASK_STATE_SUBMITTED' }), ...lease(T0 + 500) })
          await store.create({ ...makeRecord({ id: 'settled', state: 'TASK_STATE_COMPLETED' }), ...lease(T0) })
          await store.create({ ...makeRecord({ id: 'paused', state: 'TASK_STATE_INPUT_REQUIRED' }), ...lease(T0) })
          expect(ids(await the('leases').expiredRuns(T0 + 1000, 10)).sort()).toEqual(['expired', 'leaseless', 'queued'])
          expect(await the('leases').expiredRuns(T0 + 1000, 2)).toHaveLength(2)
          expect(ids(await the('leases').expiredRuns(T0 - 1, 10))).toEqual(['leaseless'])
          expect(await store.get('expired')).toEqual((await the('leases').expiredRuns(T0 + 1, 10)).find((r) => r.id === 'expired'))
        })
      },
      pushHints: () => {
        it('noPushConfigsFor tells at once of a write that saw no config, and never of one that saw a config', async () => {
          const [held, bare, late] = [makeRecord({ id: 't1' }), makeRecord({ id: 't2' }), makeRecord({ id: 't3' })]
          await seed(store, [held, bare, late])
          await store.putPushConfig(makePushConfig('t1', 'c1'))
          const write = (record: typeof held) => store.update(record.id, 1, { task: nextTask(record, 'TASK_STATE_WORKING', T0 + 1000) })
          await Promise.all([write(held), write(bare), write(late)])
          // A config put after the write that saw none: that write's event goes to it.
          await store.putPushConfig(makePushConfig('t3', 'c3'))
          expect(['t1', 't2', 't3'].map((id) => the('pushHints').noPushConfigsFor(id, 2))).toEqual([false, true, false])
        })

        it('noPushConfigsFor tells the same of each version a write of several events made', async () => {
          const [held, bare] = [makeRecord({ id: 't1', state: 'TASK_STATE_SUBMITTED' }), makeRecord({ id: 't2', state: 'TASK_STATE_SUBMITTED' })]
          await seed(store, [held, bare])
          await store.putPushConfig(makePushConfig('t1', 'c1'))
          const event = (record: typeof held) => ({ statusUpdate: { taskId: record.id, contextId: record.contextId, status: { state: 'TASK_STATE_WORKING' as const } } })
          for (const record of [held, bare])
            await store.update(record.id, 1, { task: nextTask(record, 'TASK_STATE_WORKING', T0 + 1000), events: [event(record), event(record), event(record)] })
          expect([2, 3, 4].map((version) => the('pushHints').noPushConfigsFor('t1', version))).toEqual([false, false, false])
          expect([2, 3, 4].map((version) => the('pushHints').noPushConfigsFor('t2', version))).toEqual([true, true, true])
        })
      },
      pushOutbox: () => {
        it('queuePushOutbox resolves false and changes nothing when the outbox table is not in its database', async () => {
          const outbox = the('pushOutbox')
          expect(await outbox.queuePushOutbox('a2a_no_such_outbox')).toBe(false)
          const record = makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' })
          await store.create(record)
          await store.putPushConfig(makePushConfig('t1', 'c1'))
          const event = { statusUpdate: { taskId: 't1', contextId: record.contextId, status: { state: 'TASK_STATE_COMPLETED' as const } } }
          expect(await store.update('t1', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000), event })).toMatchObject({ version: 2 })
          // No outbox rows went with the write: the delivery writes them itself.
          expect(outbox.outboxedFor('t1', 2)).toBeUndefined()
          expect(outbox.outboxedFor('nope', 1)).toBeUndefined()
        })
      },
      jobRows: () => {
        it('writesJobRow resolves false for a job queued on another database', async () => {
          const job = {
            schema: 'a2a_jobs',
            database: 'another-database',
            queue: 'a2a-jobs',
            id: '00000000-0000-5000-8000-000000000000',
            data: {},
            retryLimit: 0,
            retryDelay: 0,
            retryBackoff: false,
            expireInSeconds: 60,
            deadLetter: 'a2a-jobs-dead',
          }
          expect(await the('jobRows').writesJobRow(job)).toBe(false)
        })
      },
      trims: () => {
        it('trimSettled deletes the push configs of the tasks it deletes', async () => {
          const tier = f.TRIM_TIER
          await seed(store, [makeRecord({ id: 'old', ...tier, time: T0 }), makeRecord({ id: 'new', ...tier, time: T0 + 1000 })])
          await store.putPushConfig(makePushConfig('old', 'c1'))
          await store.putPushConfig(makePushConfig('new', 'c1'))
          expect(await the('trims').trimSettled(tier, 1)).toEqual(['old'])
          expect(await store.listPushConfigs('old')).toEqual([])
          expect(configIds(await store.listPushConfigs('new'))).toEqual(['c1'])
        })

        it('trimSettled keeps the newest terminal records of exactly one tier', async () => {
          const tier = f.TRIM_TIER
          const { inFlight, settled, others } = f.trimFixture()
          await seed(store, [...inFlight, ...settled, ...others])
          expect(await f.sortedIds(the('trims').trimSettled(tier, 2))).toEqual(['done-0', 'done-1'])
          for (const id of ['done-0', 'done-1']) expect(await store.get(id)).toBeUndefined()
          await f.expectStored(store, [...inFlight, ...others, ...settled.slice(2)])
          expect(await the('trims').trimSettled(tier, 2)).toEqual([])
          expect(await f.sortedIds(the('trims').trimSettled(tier, 0))).toEqual(['done-2', 'done-3'])
          await f.expectStored(store, [...inFlight, ...others])
          // A scoped tier trims only its own records, never the session tier's.
          await store.create(makeRecord({ id: 'session-done', ...tier, time: T0 + 9000 }))
          expect(await the('trims').trimSettled({ ...tier, scope: 'read' }, 0)).toEqual(['scoped'])
          expect(await store.get('session-done')).toBeDefined()
        })

        it('trimSettled breaks status-time ties by id, keeping the higher id', async () => {
          const tier = { owner: 'alice', tenant: null, scope: 'read' }
          await seed(
            store,
            ['tie-a', 'tie-c', 'tie-b'].map((id) => makeRecord({ id, ...tier, time: T0 + 1000 })),
          )
          expect(await f.sortedIds(the('trims').trimSettled(tier, 1))).toEqual(['tie-a', 'tie-b'])
          expect(await store.get('tie-c')).toBeDefined()
        })
      },
      pacedTrims: () => {
        it('one trim removes every settled task past the bound, however far past it the tier ran', async () => {
          // Paced, a tier runs up to ⌊bound / 8⌋ - 1 past its bound between trims: the trim takes them all.
          const tier = f.TRIM_TIER
          await seed(
            store,
            Array.from({ length: 12 }, (_, i) => makeRecord({ id: `done-${String(i).padStart(2, '0')}`, ...tier, time: T0 + i })),
          )
          const trimmed = await the('trims').trimSettled(tier, 2)
          expect([...trimmed].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `done-${String(i).padStart(2, '0')}`))
          expect(ids(await store.list({ owner: tier.owner, pageSize: 100 }))).toEqual(['done-11', 'done-10'])
        })
      },
      counters: () => {
        it('takes a place under a key while fewer than the limit are taken, counting an id once, until released', async () => {
          const { counters } = the('counters')
          // Keys of this run only: a store's counts may outlive a test's tasks.
          const key = `conformance ${Math.random().toString(36).slice(2)}`
          expect(await counters.take(key, 'a', 2, 60_000)).toEqual({ taken: true })
          expect(await counters.take(key, 'b', 2, 60_000)).toEqual({ taken: true })
          const refused = await counters.take(key, 'c', 2, 60_000)
          expect(refused.taken).toBe(false)
          expect(refused.taken === false && refused.retryAfterMs).toBeGreaterThan(0)
          expect(refused.taken === false && refused.retryAfterMs).toBeLessThanOrEqual(60_000)
          // An id already counted is counted once: taking it again renews it.
          expect(await counters.take(key, 'a', 2, 60_000)).toEqual({ taken: true })
          // Another key counts apart.
          expect(await counters.take(`${key} other`, 'c', 1, 60_000)).toEqual({ taken: true })
          await counters.release(key, 'a')
          await expect(counters.release(key, 'never')).resolves.toBeUndefined()
          expect(await counters.take(key, 'c', 2, 60_000)).toEqual({ taken: true })
          expect(await counters.take(`${key} none`, 'a', 0, 60_000)).toEqual({ taken: false, retryAfterMs: Number.POSITIVE_INFINITY })
        })
      },
      artifactFiles: () => {
        it('keeps a file by task and id, and sweeps the files of tasks that no longer exist', async () => {
          const { artifactFiles } = the('artifactFiles')
          await store.create(makeRecord({ id: 'kept' }))
          const file = { taskId: 'kept', id: 'f1', owner: 'alice', mediaType: 'application/pdf', filename: 'report.pdf', bytes: new Uint8Array([0, 1, 2, 255]), createdAt: WRITTEN }
          await artifactFiles.put(file)
          await artifactFiles.put({ ...file, id: 'f2', filename: undefined, mediaType: 'text/plain' })
          await artifactFiles.put({ ...file, taskId: 'gone' })
          const got = await artifactFiles.get('kept', 'f1')
          expect({ ...got, bytes: [...got!.bytes] }).toEqual({ ...file, bytes: [0, 1, 2, 255] })
          expect(await artifactFiles.get('kept', 'f2')).not.toHaveProperty('filename')
          expect(await artifactFiles.get('kept', 'f3')).toBeUndefined()
          expect(await artifactFiles.sweep(async (taskId) => (await store.get(taskId)) !== undefined)).toBe(1)
          expect(await artifactFiles.get('gone', 'f1')).toBeUndefined()
          expect(await artifactFiles.get('kept', 'f1')).toBeDefined()
        })
      },
    }

    describe('core', () => {
      if (options.capabilities) {
        const declared = options.capabilities
        it(`declares exactly the capabilities ${declared.join(', ') || '(none)'}`, () => {
          expect(CAPABILITY_NAMES.filter((capability) => capabilitiesOf(store).has(capability))).toEqual(CAPABILITY_NAMES.filter((capability) => declared.includes(capability)))
        })
      }

      it('is ready to serve once ready() resolves, when it has one', async () => {
        await store.ready?.()
        await store.create(makeRecord({ id: 'ready' }))
        expect((await store.get('ready'))?.id).toBe('ready')
      })

      it('create then get returns an equal record that is a copy', async () => {
        const record = makeRecord({ id: 't1', tenant: 'acme', scope: 'read', messageIds: ['m1', 'm2'] })
        const snapshot = structuredClone(record)
        await store.create(record)
        // Neither the object passed in nor the one handed out is kept by reference.
        record.task.status.state = 'TASK_STATE_FAILED'
        record.messageIds.push('m3')
        const got = await store.get('t1')
        expect(got).toEqual(snapshot)
        got!.task.history!.push({ messageId: 'x', role: 'ROLE_AGENT', parts: [] })
        got!.messageIds.length = 0
        expect(await store.get('t1')).toEqual(snapshot)
      })

      it('create keeps a message id that repeats within the record, found once by it', async () => {
        const record = makeRecord({ id: 't1', messageIds: ['m1', 'm2', 'm1'] })
        await store.create(record)
        expect(await store.get('t1')).toEqual(record)
        expect(await store.findByMessageId('alice', 'm1')).toEqual([record])
      })

      it('create rejects a duplicate id and keeps the stored record', async () => {
        const first = makeRecord({ id: 't1' })
        await store.create(first)
        await expect(store.create(makeRecord({ id: 't1', owner: 'bob', contextId: 'ctx-2' }))).rejects.toThrow()
        expect(await store.get('t1')).toEqual(first)
        expect(await store.findByMessageId('bob', 'msg-t1')).toEqual([])
      })

      it("lookups made together answer each its own: copies of one task, each owner's message id, the unknown ones empty", async () => {
        const [a, b] = [makeRecord({ id: 't1', messageIds: ['m1'] }), makeRecord({ id: 't2', owner: 'bob', messageIds: ['m1', 'm2'] })]
        await seed(store, [a, b])
        const [first, second, other, none] = await Promise.all([store.get('t1'), store.get('t1'), store.get('t2'), store.get('nope')])
        expect([first, second, other, none]).toEqual([a, a, b, undefined])
        first!.task.status.state = 'TASK_STATE_FAILED'
        first!.messageIds.push('x')
        expect(second).toEqual(a)
        const found = await Promise.all([
          store.findByMessageId('alice', 'm1'),
          store.findByMessageId('bob', 'm1'),
          store.findByMessageId('bob', 'm2'),
          store.findByMessageId('alice', 'm2'),
          store.findByMessageId('bob', 'm1'),
        ])
        expect(found.map(ids)).toEqual([['t1'], ['t2'], ['t2'], [], ['t2']])
        found[1]![0]!.task.status.state = 'TASK_STATE_FAILED'
        expect(found[4]).toEqual([b])
      })

      it('writes made together fail alone: a duplicate create beside creates and updates that land', async () => {
        const [first, second] = [makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' }), makeRecord({ id: 't2', state: 'TASK_STATE_WORKING' })]
        await seed(store, [first, second])
        const outcomes = await Promise.allSettled([
          store.update('t1', 1, { task: nextTask(first, 'TASK_STATE_COMPLETED', T0 + 1000) }),
          store.create(makeRecord({ id: 't1', messageIds: ['dup'] })),
          store.create(makeRecord({ id: 't3', messageIds: ['m3'] })),
          store.update('t2', 1, { task: nextTask(second, 'TASK_STATE_COMPLETED', T0 + 1000) }),
          store.update('t2', 1, { task: nextTask(second, 'TASK_STATE_FAILED', T0 + 1000) }),
        ])
        expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'])
        const [updated, , , raced, lost] = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined))
        expect(updated).toMatchObject({ version: 2 })
        // Two writers on one version: exactly one lands.
        expect([raced, lost].filter(Boolean)).toHaveLength(1)
        expect((await store.get('t1'))?.task.status.state).toBe('TASK_STATE_COMPLETED')
        expect(await store.get('t3')).toEqual(makeRecord({ id: 't3', messageIds: ['m3'] }))
        expect(ids(await store.findByMessageId('alice', 'dup'))).toEqual([])
        expect(ids(await store.findByMessageId('alice', 'm3'))).toEqual(['t3'])
      })

      it('get of an unknown id is undefined', async () => {
        expect(await store.get('nope')).toBeUndefined()
      })

      it('update writes the task body and bumps the version, never the coordinates', async () => {
        const before = makeRecord({ id: 't1', tenant: 'acme', scope: 'read', state: 'TASK_STATE_WORKING', messageIds: ['m1'], repliedWithMessage: true })
        await store.create(before)
        const task = nextTask(before, 'TASK_STATE_COMPLETED', T0 + 5000)
        const next = await store.update('t1', 1, f.sneakyChanges(task))
        expect(next).toMatchObject({ version: 2, task, messageIds: ['m1'], repliedWithMessage: true })
        expect(next!.updatedAt).toBeGreaterThanOrEqual(before.updatedAt)
        expect(f.coordinates(next!)).toEqual(f.coordinates(before))
        expect(await store.get('t1')).toEqual(next)
        expect(await store.get('other')).toBeUndefined()
        const third = await store.update('t1', 2, { task, messageIds: ['m1', 'm2'], repliedWithMessage: false })
        expect(third).toMatchObject({ version: 3, messageIds: ['m1', 'm2'], repliedWithMessage: false })
        expect(third!.updatedAt).toBeGreaterThanOrEqual(next!.updatedAt)
        expect(f.coordinates(third!)).toEqual(f.coordinates(before))
      })

      it('an update carrying several events makes a version per event', async () => {
        const before = makeRecord({ id: 't1', state: 'TASK_STATE_SUBMITTED', messageIds: ['m1'] })
        const bare = makeRecord({ id: 't2', state: 'TASK_STATE_SUBMITTED' })
        await seed(store, [before, bare])
        const task = nextTask(before, 'TASK_STATE_COMPLETED', T0 + 5000)
        const events = (['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'] as const).map((state) => ({
          statusUpdate: { taskId: 't1', contextId: before.contextId, status: { state } },
        }))
        const artifact = { artifactUpdate: { taskId: 't1', contextId: before.contextId, artifact: task.artifacts![0]! } }
        const written = await store.update('t1', 1, { task, events: [events[0]!, artifact, events[1]!] })
        expect(written).toMatchObject({ version: 4, task })
        expect(await store.get('t1')).toEqual(written)
        // The version it expected is gone: a write expecting 1 (or any of the skipped ones) is refused.
        for (const version of [1, 2, 3]) expect(await store.update('t1', version, { task, event: events[1]! })).toBeUndefined()
        expect(await store.update('t1', 4, { task, event: events[1]! })).toMatchObject({ version: 5 })
        expect(await store.update('t2', 1, { task: nextTask(bare, 'TASK_STATE_WORKING', T0 + 1000), events: [events[0]!, events[0]!] })).toMatchObject({ version: 3 })
      })

      it('update never moves updatedAt back, and dates a task without a status timestamp by it', async () => {
        // Written by a host whose clock ran a day ahead of this one.
        const ahead = Date.now() + 86_400_000
        const record = { ...makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' }), createdAt: ahead, updatedAt: ahead }
        await store.create(record)
        const { timestamp: _, ...status } = nextTask(record, 'TASK_STATE_COMPLETED', T0).status
        const next = await store.update('t1', 1, { task: { ...record.task, status } })
        expect(next?.updatedAt).toBe(ahead)
        expect(ids(await store.list({ owner: 'alice', statusAfter: ahead, pageSize: 10 }))).toEqual(['t1'])
        expect(ids(await store.list({ owner: 'alice', statusAfter: ahead + 1, pageSize: 10 }))).toEqual([])
      })

      it('update returns and stores copies', async () => {
        const record = makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' })
        await store.create(record)
        const task = nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000)
        const next = (await store.update('t1', 1, { task, messageIds: ['m1'] }))!
        const stored = structuredClone(next)
        task.status.state = 'TASK_STATE_FAILED'
        next.messageIds.push('m2')
        expect(await store.get('t1')).toEqual(stored)
      })

      it('update with a stale or future expectedVersion is undefined and changes nothing', async () => {
        const record = makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' })
        await store.create(record)
        const v2 = await store.update('t1', 1, { task: nextTask(record, 'TASK_STATE_INPUT_REQUIRED', T0 + 1000) })
        expect(v2?.version).toBe(2)
        const other = nextTask(record, 'TASK_STATE_FAILED', T0 + 2000)
        expect(await store.update('t1', 1, { task: other, messageIds: ['x'] })).toBeUndefined()
        expect(await store.update('t1', 3, { task: other })).toBeUndefined()
        expect(await store.get('t1')).toEqual(v2)
      })

      it('update of an unknown id is undefined and creates nothing', async () => {
        expect(await store.update('ghost', 1, { task: makeRecord({ id: 'ghost' }).task })).toBeUndefined()
        expect(await store.get('ghost')).toBeUndefined()
      })

      for (const kind of f.UNENCODABLE_KINDS) {
        it(`update rejects a task that cannot be JSON-encoded (${kind}) and keeps task and version`, async () => {
          const record = makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' })
          await store.create(record)
          await expect(store.update('t1', 1, { task: f.unencodableTask(record, kind), messageIds: ['x'] })).rejects.toThrow(NotJsonEncodableError)
          expect(await store.get('t1')).toEqual(record)
          // The version did not move: a write expecting version 1 still lands.
          expect((await store.update('t1', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1) }))?.version).toBe(2)
        })

        it(`create rejects a task that cannot be JSON-encoded (${kind}) and stores nothing`, async () => {
          const record = makeRecord({ id: 't1' })
          await expect(store.create({ ...record, task: f.unencodableTask(record, kind) })).rejects.toThrow(NotJsonEncodableError)
          expect(await store.get('t1')).toBeUndefined()
          expect((await store.list({ owner: 'alice', pageSize: 10 })).total).toBe(0)
          await store.create(record)
          expect(await store.get('t1')).toEqual(record)
        })
      }

      it("list returns only the owner's records, newest status first, ties by id descending", async () => {
        const { records, order } = f.orderingFixture()
        await seed(store, records)
        const page = await store.list({ owner: 'alice', pageSize: 100 })
        expect(ids(page)).toEqual(order)
        expect(page.total).toBe(order.length)
        expect(page.nextCursor).toBeUndefined()
        await f.expectCases(store, [
          [{ owner: 'bob' }, ['bob-1']],
          [{ owner: 'carol' }, []],
        ])
      })

      it('list counts every match in total and respects pageSize', async () => {
        const { records, order } = f.orderingFixture()
        await seed(store, records)
        const page = await store.list({ owner: 'alice', pageSize: 2 })
        expect(ids(page)).toEqual(order.slice(0, 2))
        expect(page.total).toBe(order.length)
        expect(page.nextCursor).toEqual(expect.any(String))
      })

      it('paging with nextCursor walks every record exactly once, for any page size', async () => {
        const { records, order } = f.orderingFixture()
        await seed(store, records)
        for (const pageSize of [1, 2, 3, 6, 7, 8, 100]) {
          const pages = await f.walk(store, { owner: 'alice', pageSize })
          expect(pages.flatMap(ids), `pageSize ${pageSize}`).toEqual(order)
          // No empty trailing page: the cursor is absent exactly when nothing follows.
          expect(pages).toHaveLength(Math.ceil(order.length / pageSize))
          for (const page of pages) expect(page.total).toBe(order.length)
          expect(pages.at(-1)!.nextCursor).toBeUndefined()
        }
      })

      it('list filters by contextId, several states and statusAfter (inclusive)', async () => {
        await seed(store, f.filterFixture())
        await f.expectCases(store, f.filterCases)
      })

      it('list rejects a cursor it did not issue with InvalidCursorError', async () => {
        await seed(store, f.orderingFixture().records)
        const issued = (await store.list({ owner: 'alice', pageSize: 2 })).nextCursor!
        for (const cursor of f.forgedCursors(issued)) {
          await expect(store.list({ owner: 'alice', pageSize: 2, cursor }), JSON.stringify(cursor)).rejects.toBeInstanceOf(InvalidCursorError)
        }
      })

      it('delete removes a record; deleting an absent id does not throw', async () => {
        await seed(store, [makeRecord({ id: 't1', messageIds: ['m1'] }), makeRecord({ id: 't2' })])
        await store.delete('t1')
        expect(await store.get('t1')).toBeUndefined()
        await f.expectCases(store, [[{}, ['t2']]])
        expect(await store.findByMessageId('alice', 'm1')).toEqual([])
        await expect(store.delete('t1')).resolves.toBeUndefined()
        await expect(store.delete('never-existed')).resolves.toBeUndefined()
        expect(await store.get('t2')).toBeDefined()
      })

      it("findByMessageId returns only that owner's records holding the message id", async () => {
        const r3 = makeRecord({ id: 't3', messageIds: ['m2'] })
        await seed(store, [makeRecord({ id: 't1', messageIds: ['m1'] }), makeRecord({ id: 'b1', owner: 'bob', messageIds: ['m1'] }), r3])
        expect(ids(await store.findByMessageId('alice', 'm1'))).toEqual(['t1'])
        expect(ids(await store.findByMessageId('bob', 'm1'))).toEqual(['b1'])
        expect(await store.findByMessageId('alice', 'm-none')).toEqual([])
        expect(await store.findByMessageId('carol', 'm1')).toEqual([])
        // An update that accepts a second message makes the task findable by it too.
        await store.update('t3', 1, { task: r3.task, messageIds: ['m2', 'm1'] })
        expect(ids(await store.findByMessageId('alice', 'm1')).sort()).toEqual(['t1', 't3'])
        expect(await store.findByMessageId('alice', 'm2')).toMatchObject([{ id: 't3', version: 2, messageIds: ['m2', 'm1'] }])
        expect(await store.findByMessageId('bob', 'm2')).toEqual([])
      })

      it('putPushConfig then get and list return equal copies; unknown ids are undefined or empty', async () => {
        await seed(store, [makeRecord({ id: 't1' })])
        const config = makePushConfig('t1', 'c1', 0, { token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } })
        const snapshot = structuredClone(config)
        await store.putPushConfig(config)
        // Neither the object passed in nor the ones handed out are kept by reference.
        config.url = 'https://evil.example.com/'
        config.authentication!.credentials = 'changed'
        const got = await store.getPushConfig('t1', 'c1')
        expect(got).toEqual(snapshot)
        got!.authentication!.scheme = 'Basic'
        got!.token = 'x'
        const listed = await store.listPushConfigs('t1')
        expect(listed).toEqual([snapshot])
        listed[0]!.authentication!.credentials = 'y'
        listed.length = 0
        expect(await store.listPushConfigs('t1')).toEqual([snapshot])
        expect(await store.getPushConfig('t1', 'c2')).toBeUndefined()
        expect(await store.getPushConfig('t2', 'c1')).toBeUndefined()
        expect(await store.listPushConfigs('t2')).toEqual([])
      })

      it('a config without token or authentication reads back without them', async () => {
        await seed(store, [makeRecord({ id: 't1' })])
        await store.putPushConfig(makePushConfig('t1', 'c1'))
        const got = await store.getPushConfig('t1', 'c1')
        expect(got).toEqual(makePushConfig('t1', 'c1'))
        expect(got?.token).toBeUndefined()
        expect(got?.authentication).toBeUndefined()
      })

      it("keeps the generation a config was set in, with and without authentication, and its replacement's", async () => {
        await seed(store, [makeRecord({ id: 't1' })])
        const bare = makePushConfig('t1', 'c1', 0, { generation: '0.3' })
        const authenticated = makePushConfig('t1', 'c2', 1, { generation: '0.3', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } })
        await store.putPushConfig(bare)
        await store.putPushConfig(authenticated)
        expect(await store.getPushConfig('t1', 'c1')).toEqual(bare)
        expect(await store.listPushConfigs('t1')).toEqual([bare, authenticated])
        // Set again over 1.0, it is a 1.0 config.
        const replaced = makePushConfig('t1', 'c2', 2, { authentication: { scheme: 'Bearer' } })
        await store.putPushConfig(replaced)
        expect(await store.getPushConfig('t1', 'c2')).toEqual(replaced)
      })

      it('putPushConfig replaces the config with the same (taskId, id) and keeps the others', async () => {
        await seed(store, [makeRecord({ id: 't1' }), makeRecord({ id: 't2' })])
        await store.putPushConfig(makePushConfig('t1', 'c1', 0, { token: 'old', authentication: { scheme: 'Bearer' } }))
        await store.putPushConfig(makePushConfig('t1', 'c2', 1))
        // The same config id on another task is another config.
        await store.putPushConfig(makePushConfig('t2', 'c1', 2))
        const replacement = makePushConfig('t1', 'c1', 5, { url: 'https://other.example.com/hook' })
        await store.putPushConfig(replacement)
        expect(await store.getPushConfig('t1', 'c1')).toEqual(replacement)
        expect(configIds(await store.listPushConfigs('t1'))).toEqual(['c2', 'c1'])
        expect(await store.listPushConfigs('t2')).toEqual([makePushConfig('t2', 'c1', 2)])
      })

      it('listPushConfigs is oldest first by createdAt, ties by id', async () => {
        await seed(store, [makeRecord({ id: 't1' })])
        for (const [id, at] of [
          ['c-d', 30],
          ['c-b', 10],
          ['c-c', 10],
          ['c-a', 20],
          ['c-e', 0],
        ] as const) {
          await store.putPushConfig(makePushConfig('t1', id, at))
        }
        expect(configIds(await store.listPushConfigs('t1'))).toEqual(['c-e', 'c-b', 'c-c', 'c-a', 'c-d'])
      })

      it('deletePushConfig removes one config; deleting an absent one does not throw', async () => {
        await seed(store, [makeRecord({ id: 't1' })])
        await store.putPushConfig(makePushConfig('t1', 'c1'))
        await store.putPushConfig(makePushConfig('t1', 'c2', 1))
        await store.deletePushConfig('t1', 'c1')
        expect(await store.getPushConfig('t1', 'c1')).toBeUndefined()
        expect(configIds(await store.listPushConfigs('t1'))).toEqual(['c2'])
        await expect(store.deletePushConfig('t1', 'c1')).resolves.toBeUndefined()
        await expect(store.deletePushConfig('t1', 'never')).resolves.toBeUndefined()
        await expect(store.deletePushConfig('no-task', 'c2')).resolves.toBeUndefined()
        expect(configIds(await store.listPushConfigs('t1'))).toEqual(['c2'])
      })

      it('deleting a task deletes its push configs, and only its own', async () => {
        await seed(store, [makeRecord({ id: 't1' }), makeRecord({ id: 't2' })])
        await store.putPushConfig(makePushConfig('t1', 'c1'))
        await store.putPushConfig(makePushConfig('t1', 'c2', 1))
        await store.putPushConfig(makePushConfig('t2', 'c1'))
        await store.delete('t1')
        expect(await store.listPushConfigs('t1')).toEqual([])
        expect(await store.getPushConfig('t1', 'c1')).toBeUndefined()
        expect(configIds(await store.listPushConfigs('t2'))).toEqual(['c1'])
      })

      it('deletePushConfigsOfTasks removes every config of the given tasks only', async () => {
        await seed(store, [makeRecord({ id: 't1' }), makeRecord({ id: 't2' }), makeRecord({ id: 't3' })])
        for (const task of ['t1', 't2', 't3']) {
          await store.putPushConfig(makePushConfig(task, 'c1'))
          await store.putPushConfig(makePushConfig(task, 'c2', 1))
        }
        await store.deletePushConfigsOfTasks(['t1', 't3', 'no-such-task'])
        expect(await store.listPushConfigs('t1')).toEqual([])
        expect(await store.listPushConfigs('t3')).toEqual([])
        expect(configIds(await store.listPushConfigs('t2'))).toEqual(['c1', 'c2'])
        // The tasks themselves stay: this deletes configs, not tasks.
        expect(await store.get('t1')).toBeDefined()
        await expect(store.deletePushConfigsOfTasks([])).resolves.toBeUndefined()
        await expect(store.deletePushConfigsOfTasks(['t1'])).resolves.toBeUndefined()
      })
    })

    for (const capability of CAPABILITY_NAMES) {
      if (options.capabilities && !options.capabilities.includes(capability)) continue
      describe(capability, () => {
        beforeEach(({ skip }) => {
          if (!capabilityOf(store, capability)) skip(`the store does not declare ${capability}`)
        })
        sections[capability]()
      })
    }
  })
}
