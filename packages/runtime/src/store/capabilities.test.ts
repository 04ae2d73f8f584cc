import { describe, expect, it } from 'vitest'
import { createExchange } from '../exchange/exchange.js'
import { defineSkill } from '../skills/skill.js'
import { CAPABILITY_NAMES, capabilitiesOf, capabilityOf, type CapabilityName } from './capabilities.js'
import { MemoryStore } from './memory-store.js'
import type { Store } from './store.js'

/** A store of the core alone (over a MemoryStore), with what `extra` adds. */
function coreStore(extra: Record<string, unknown> = {}): Store {
  const inner = new MemoryStore()
  return {
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
    ...extra,
  }
}

const noop = async () => {}
const found = (store: Store): CapabilityName[] => CAPABILITY_NAMES.filter((name) => capabilitiesOf(store).has(name))

describe('capabilityOf', () => {
  it('answers the store itself for a capability it declares, and undefined for one it does not', () => {
    const store = new MemoryStore()
    expect(capabilityOf(store, 'leases')).toBe(store)
    expect(capabilityOf(store, 'oneProcess')).toBe(store)
    expect(capabilityOf(store, 'notifications')).toBeUndefined()
    expect(found(store)).toEqual(['filtersTenant', 'filtersScope', 'oneProcess', 'leases', 'pushHints', 'trims'])
  })

  it('counts only what a store declares, whatever other members it has', () => {
    // A declared list is the whole answer: a method of a capability's name does not add it.
    const store = coreStore({ capabilities: ['filtersTenant'], trimSettled: async () => [], renewLeases: noop, expiredRuns: async () => [] })
    expect(found(store)).toEqual(['filtersTenant'])
  })

  it('reads a store written before capabilities by its flags and optional members, each capability whole', () => {
    const old = coreStore({
      capabilities: { filtersTenant: true, filtersScope: false, pacedTrims: true },
      createUnlessAccepted: async () => true,
      eventsSince: async () => [],
      // Half of leases (no expiredRuns) is no leases: the sweep would have nothing to call.
      renewLeases: noop,
      noPushConfigsFor: () => false,
      counters: { take: async () => ({ taken: true }), release: noop },
    })
    expect(found(old)).toEqual(['filtersTenant', 'acceptOnce', 'keptEvents', 'pushHints', 'pacedTrims', 'counters'])
    expect(found(coreStore())).toEqual([])
  })

  it('keeps the first answer for the store: its capabilities are read once', () => {
    const capabilities: CapabilityName[] = ['filtersTenant']
    const store = coreStore({ capabilities })
    expect(capabilityOf(store, 'filtersScope')).toBeUndefined()
    capabilities.push('filtersScope')
    expect(capabilityOf(store, 'filtersScope')).toBeUndefined()
  })

  it('refuses a declaration the store does not implement, naming the capability, what is missing and what to do', () => {
    class HalfLeased {
      readonly capabilities = ['leases', 'counters']
      renewLeases = noop
    }
    const half = Object.assign(new HalfLeased(), coreStore())
    expect(() => capabilityOf(half as unknown as Store, 'leases')).toThrow(
      new TypeError('HalfLeased declares the capability leases but has no expiredRuns(): implement it, or leave leases out of its capabilities'),
    )
    expect(() => capabilityOf(coreStore({ capabilities: ['pushOutbox'] }), 'trims')).toThrow(
      'the store declares the capability pushOutbox but has no queuePushOutbox() or outboxedFor(): implement them, or leave pushOutbox out of its capabilities',
    )
    expect(() => capabilityOf(coreStore({ capabilities: ['counters'], counters: null }), 'counters')).toThrow('has no counters: implement it')
    expect(() => capabilityOf(coreStore({ capabilities: ['filtersTenants'] }), 'trims')).toThrow(
      `the store declares "filtersTenants", which is not a store capability; declare only these: ${CAPABILITY_NAMES.join(', ')}`,
    )
    expect(() => capabilityOf(coreStore({ capabilities: ['pacedTrims'] }), 'trims')).toThrow(
      'the store declares the capability pacedTrims without trims, which it qualifies: declare trims too, or leave pacedTrims out',
    )
  })
})

it('createExchange refuses a store that declares a capability it does not implement, before serving anything', () => {
  const echo = defineSkill({ id: 'echo', description: 'echo', handler: async (ctx) => ctx.complete() })
  const store = coreStore({ capabilities: ['filtersTenant', 'leases'], renewLeases: noop })
  expect(() => createExchange({ skills: [echo], card: { name: 'A', description: 'a', version: '1' }, resolvePrincipal: () => ({ owner: 'alice' }), store })).toThrow(
    'the store declares the capability leases but has no expiredRuns(): implement it, or leave leases out of its capabilities',
  )
})
